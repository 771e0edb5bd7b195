import { randomBytes } from "node:crypto";
import type { Installation } from "@slack/oauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.ts";
import { createPgInstallationStore } from "../../../src/slack/oauth/pg-installation-store.ts";
import { createTokenCipher, keyIdOf } from "../../../src/slack/oauth/token-cipher.ts";
import { sql } from "../../../src/store/drizzle.ts";
import { openTestStore, type TestStore } from "../../helpers/pg.ts";

const install = (teamId: string, token: string): Installation<"v2", false> => ({
  team: { id: teamId, name: teamId },
  enterprise: undefined,
  user: { id: "U0ADMIN", token: undefined, scopes: undefined },
  bot: {
    token,
    refreshToken: `xoxe-1-${teamId}`,
    expiresAt: 2_000_000_000,
    scopes: ["chat:write"],
    id: "B1",
    userId: "U0BOT",
  },
  isEnterpriseInstall: false,
  authVersion: "v2",
  tokenType: "bot",
  appId: "A1",
});

describe("installation tokens sealed at rest (AES-256-GCM) and the key's rotation", () => {
  let store: TestStore;
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const logger = silentLogger();
  beforeAll(async () => {
    store = await openTestStore("postgres");
  }, 60_000);
  afterAll(async () => store?.cleanup());

  const db = () => store.handle.db;
  const rowOf = async (key: string) =>
    (
      await db().execute<{ secrets: string; key_id: string }>(
        sql`SELECT secrets, key_id FROM slack_installations WHERE install_key = ${key}`,
      )
    ).rows[0]!;

  it("seals and opens; a sealed text altered, or moved to another row, does not open", () => {
    const cipher = createTokenCipher({ key: oldKey });
    const sealed = cipher.seal("xoxb-secret", "T:T1");
    expect(sealed).not.toContain("xoxb");
    expect(cipher.open(sealed, "T:T1")).toEqual({ plaintext: "xoxb-secret", stale: false });
    expect(() => cipher.open(sealed, "T:T2")).toThrow();
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[4]!, "base64url");
    flipped[0]! ^= 1;
    parts[4] = flipped.toString("base64url");
    expect(() => cipher.open(parts.join("."), "T:T1")).toThrow();
    expect(() => createTokenCipher({ key: newKey }).open(sealed, "T:T1")).toThrow(
      /neither HERMES_INSTALLATION_KEY/,
    );
  });

  it("rows sealed with the old key are read with old+new and re-sealed with the new one", async () => {
    const before = createPgInstallationStore({
      db: db(),
      cipher: createTokenCipher({ key: oldKey }),
      logger,
    });
    await before.storeInstallation(install("T1", "xoxb-team-one"));
    await before.storeInstallation(install("T2", "xoxb-team-two"));
    expect((await rowOf("T:T1")).key_id).toBe(keyIdOf(oldKey));

    const rotated = createPgInstallationStore({
      db: db(),
      cipher: createTokenCipher({ key: newKey, previousKey: oldKey }),
      logger,
    });
    // Read: opened with the previous key, then re-sealed with the current one.
    const read = await rotated.fetchInstallation({
      teamId: "T1",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(read.bot?.token).toBe("xoxb-team-one");
    expect(read.bot?.refreshToken).toBe("xoxe-1-T1");
    expect((await rowOf("T:T1")).key_id).toBe(keyIdOf(newKey));
    // The rest all at once (what start-up does while a previous key is set).
    expect(await rotated.resealAll()).toBe(1);
    expect(await rotated.resealAll()).toBe(0);

    const newOnly = createPgInstallationStore({
      db: db(),
      cipher: createTokenCipher({ key: newKey }),
      logger,
    });
    for (const [team, token] of [
      ["T1", "xoxb-team-one"],
      ["T2", "xoxb-team-two"],
    ] as const) {
      const got = await newOnly.fetchInstallation({
        teamId: team,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(got.bot?.token).toBe(token);
      expect((await rowOf(`T:${team}`)).secrets).not.toContain(token);
    }
  });

  it("an org-wide install serves the workspaces its events named", async () => {
    const s = createPgInstallationStore({ db: db(), cipher: createTokenCipher({ key: newKey }), logger });
    await s.storeInstallation({
      ...install("unused", "xoxb-org"),
      team: undefined,
      enterprise: { id: "E1", name: "Org" },
      isEnterpriseInstall: true,
    } as Installation);
    const org = { teamId: undefined, enterpriseId: "E1", isEnterpriseInstall: true } as const;
    expect((await s.fetchInstallation(org)).bot?.token).toBe("xoxb-org");
    // A job names only its team: found once an event of that workspace was seen.
    const byTeam = { teamId: "T9", enterpriseId: undefined, isEnterpriseInstall: false } as const;
    await expect(s.fetchInstallation(byTeam)).rejects.toThrow(/no Slack installation for workspace T9/);
    await s.rememberOrgTeam("T9", "E1");
    expect((await s.fetchInstallation(byTeam)).bot?.token).toBe("xoxb-org");
    await s.deleteInstallation(org);
    await expect(s.fetchInstallation(byTeam)).rejects.toThrow(/no Slack installation/);
  });
});
