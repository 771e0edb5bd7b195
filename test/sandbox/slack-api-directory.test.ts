import { afterEach, describe, expect, it } from "vitest";
import { DEMO, seedDemoWorkspace } from "../../src/sandbox/seed-demo-workspace.ts";
import { largeChannel, largeUser, seedLargeWorkspace } from "../../src/sandbox/seed-large-workspace.ts";
import type { SlackApiEmulator } from "../../src/sandbox/slack-api-server.ts";
import { Workspace } from "../../src/sandbox/workspace.ts";
import { sandboxWebClient, startSlackEmulator } from "../helpers/slack.ts";

let emulator: SlackApiEmulator | undefined;
afterEach(() => emulator?.stop());

describe("the emulator's user groups", () => {
  it("usergroups.list answers as Slack does: enabled groups, users and counts only when asked", async () => {
    emulator = await startSlackEmulator();
    emulator.workspace.userGroups.add({ id: "S0OLD", handle: "old-team", users: [DEMO.user] });
    emulator.workspace.userGroups.update("S0OLD", { disabled: true });
    const client = sandboxWebClient(emulator);
    const plain = await client.usergroups.list({});
    expect(plain.usergroups).toHaveLength(1);
    expect(plain.usergroups?.[0]).toMatchObject({
      id: DEMO.netops,
      team_id: DEMO.team,
      is_usergroup: true,
      is_subteam: true,
      handle: "netops",
      name: "Network Operations",
      date_delete: 0,
      created_by: DEMO.admin,
      prefs: { channels: [], groups: [] },
    });
    expect(plain.usergroups?.[0]).not.toHaveProperty("users");
    expect(plain.usergroups?.[0]).not.toHaveProperty("user_count");
    const full = await client.usergroups.list({ include_users: true, include_disabled: true });
    expect(full.usergroups?.map((g) => [g.id, g.users, g.user_count, g.date_delete !== 0])).toEqual([
      [DEMO.netops, [DEMO.wangLei, DEMO.admin], 2, false],
      ["S0OLD", [DEMO.user], 1, true],
    ]);
    expect((await client.usergroups.users.list({ usergroup: DEMO.netops })).users).toEqual([
      DEMO.wangLei,
      DEMO.admin,
    ]);
    await expect(client.usergroups.users.list({ usergroup: "S0OLD" })).rejects.toMatchObject({
      data: { error: "no_such_subteam" },
    });
    await expect(client.usergroups.users.list({ usergroup: "S0NONE" })).rejects.toMatchObject({
      data: { error: "no_such_subteam" },
    });
  });
});

describe("the emulator's large-workspace mode", () => {
  it("seeds 20,000 people and 5,000 channels deterministically, quickly, only when asked", () => {
    expect(seedDemoWorkspace().listUsers()).toHaveLength(4);
    const started = performance.now();
    const a = new Workspace();
    seedLargeWorkspace(a);
    const ms = performance.now() - started;
    console.log(`seedLargeWorkspace: ${ms.toFixed(0)} ms`);
    expect(a.userRecords()).toHaveLength(20_000);
    expect(a.channelRecords()).toHaveLength(5_000);
    expect(a.userGroups.list()).toHaveLength(50);
    const b = new Workspace();
    seedLargeWorkspace(b, { users: 300, channels: 20, groups: 2 });
    expect(b.getUser(largeUser(299).id)?.name).toBe(a.getUser(largeUser(299).id)?.name);
    expect(new Set(a.userRecords().map((u) => u.name)).size).toBe(20_000); // handles never repeat
    expect(a.getChannel(largeChannel(9).id)).toMatchObject({ is_private: true, members: [a.bot.userId] });
  });

  it("users.list and conversations.list page with cursors, at tier 2 when limits are on", async () => {
    const workspace = new Workspace();
    seedLargeWorkspace(workspace, { users: 1_000, channels: 450, groups: 1 });
    emulator = await startSlackEmulator({ workspace, rateLimits: { scale: 1 } });
    const client = sandboxWebClient(emulator, { rejectRateLimitedCalls: true });
    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await client.users.list({ limit: 200, ...(cursor ? { cursor } : {}) });
      seen.push(...(page.members ?? []).map((m) => m.id!));
      cursor = page.response_metadata?.next_cursor ?? "";
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: 1_000 }, (_, i) => largeUser(i).id));
    // Five calls went; tier 2 (20 a minute, a burst of 5) refuses the sixth at once.
    await expect(client.users.list({ limit: 200 })).rejects.toMatchObject({
      code: "slack_webapi_rate_limited_error",
    });
    const channels = await client.conversations.list({ types: "public_channel,private_channel", limit: 200 });
    expect(channels.channels).toHaveLength(200);
    expect(channels.response_metadata?.next_cursor).not.toBe("");
  });
});
