import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.ts";
import { createTeamAuthorizer, type TeamRef } from "../../../src/slack/oauth/team-authorizer.ts";

/** An installer whose `authorize` answers after the test lets it, counting the calls. */
function slowInstaller(expiresInSeconds?: number) {
  const calls: TeamRef[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  return {
    calls,
    open: () => release(),
    installer: {
      async authorize(source: TeamRef) {
        calls.push(source);
        await gate;
        return {
          botToken: `xoxb-${calls.length}`,
          botUserId: "U0BOT",
          ...(source.isEnterpriseInstall ? {} : { teamId: source.teamId }),
          ...(expiresInSeconds
            ? { botRefreshToken: "r", botTokenExpiresAt: Math.floor(Date.now() / 1000) + expiresInSeconds }
            : {}),
        };
      },
    },
  };
}

const remembered: Array<[string, string]> = [];
const store = {
  rememberOrgTeam: async (teamId: string, enterpriseId: string) =>
    void remembered.push([teamId, enterpriseId]),
};

describe("a workspace's token, asked once at a time and kept until it is due", () => {
  it("concurrent asks for one installation share one authorize", async () => {
    const slow = slowInstaller();
    const auth = createTeamAuthorizer({ installer: slow.installer as never, store, logger: silentLogger() });
    const asks = [1, 2, 3].map(() => auth.authorize({ teamId: "T1" }));
    slow.open();
    expect((await Promise.all(asks)).map((a) => a.botToken)).toEqual(["xoxb-1", "xoxb-1", "xoxb-1"]);
    expect(slow.calls).toHaveLength(1);
    // Kept: no second authorize within the cache's time.
    expect((await auth.authorize({ teamId: "T1" })).botToken).toBe("xoxb-1");
    expect(slow.calls).toHaveLength(1);
  });

  it("a token inside its refresh window is asked for again (the installer refreshes it)", async () => {
    const slow = slowInstaller(60);
    slow.open();
    const auth = createTeamAuthorizer({ installer: slow.installer as never, store, logger: silentLogger() });
    await auth.authorize({ teamId: "T1" });
    await auth.authorize({ teamId: "T1" });
    expect(slow.calls).toHaveLength(2);
  });

  it("the workspaces of an org-wide install share the org's installation, each with its own team id", async () => {
    const slow = slowInstaller();
    const auth = createTeamAuthorizer({ installer: slow.installer as never, store, logger: silentLogger() });
    const north = auth.authorize({ teamId: "T0101", enterpriseId: "E1", isEnterpriseInstall: true });
    const south = auth.authorize({ teamId: "T0102", enterpriseId: "E1", isEnterpriseInstall: true });
    slow.open();
    expect((await north).teamId).toBe("T0101");
    expect((await south).teamId).toBe("T0102");
    expect((await south).botToken).toBe((await north).botToken);
    expect(slow.calls).toHaveLength(1);
    expect(remembered).toEqual([
      ["T0101", "E1"],
      ["T0102", "E1"],
    ]);
  });
});
