import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareTs } from "../../src/sandbox/message-ts.ts";
import { postAsUser } from "../../src/sandbox/post-as-user.ts";
import { DEMO, seedDemoWorkspace } from "../../src/sandbox/seed-demo-workspace.ts";
import { Workspace } from "../../src/sandbox/workspace.ts";
import type { WorkspaceEvent } from "../../src/sandbox/workspace-types.ts";

describe("seedDemoWorkspace", () => {
  it("has the fixtures' team, bot, people, channels and DMs", () => {
    const ws = seedDemoWorkspace();
    expect(ws.team.id).toBe("T0001");
    expect(ws.bot).toMatchObject({ userId: "U0HERMES", botId: "B0HERMES", appId: "A0HERMES1" });
    expect(ws.getUser(DEMO.bot)).toMatchObject({ is_bot: true, profile: { bot_id: "B0HERMES" } });
    expect(ws.getUser(DEMO.admin)).toMatchObject({
      name: "zhang.wei",
      is_admin: true,
      profile: { initials: "ZW" },
    });
    expect(ws.getUser(DEMO.user)).toMatchObject({ name: "li.ming", real_name: "Li Ming", is_admin: false });
    expect(ws.getUser(DEMO.wangLei)?.name).toBe("wang.lei");
    expect(ws.getChannel("C0GENERAL")).toMatchObject({ name: "general", is_channel: true });
    expect(ws.findChannelByName("#ops")?.id).toBe("C0OPS");
    for (const [user, dm] of [
      [DEMO.admin, "D0ADMIN"],
      [DEMO.user, "D0USER1"],
      [DEMO.wangLei, "D0WANGLEI"],
    ] as const) {
      expect(ws.getChannel(dm)).toMatchObject({ is_im: true, user, members: [user, DEMO.bot] });
    }
    expect(ws.openDm(DEMO.user).id).toBe("D0USER1");
    ws.addChannel({ id: "C0RANDOM", name: "random", members: [DEMO.admin] });
    expect(ws.isMember("C0RANDOM", DEMO.bot)).toBe(false);
    ws.joinChannel("C0RANDOM", DEMO.bot);
    expect(ws.isMember("C0RANDOM", DEMO.bot)).toBe(true);
  });
});

describe("Workspace messages", () => {
  it("keeps threads: reply_count, reply_users, latest_reply, and history without replies", () => {
    const ws = seedDemoWorkspace();
    const parent = postAsUser(ws, { user: DEMO.user, channel: DEMO.ops, text: "<@U0HERMES> help" });
    const r1 = ws.post({
      channel: DEMO.ops,
      user: DEMO.bot,
      botId: DEMO.botId,
      text: "on it",
      threadTs: parent.ts,
    });
    // A reply's ts counts as its thread, as in Slack clients.
    const r2 = postAsUser(ws, { user: DEMO.wangLei, channel: DEMO.ops, text: "me too", threadTs: r1.ts });
    expect(r2.thread_ts).toBe(parent.ts);
    expect(r2.parent_user_id).toBe(DEMO.user);
    expect(ws.getMessage(DEMO.ops, parent.ts)).toMatchObject({
      thread_ts: parent.ts,
      reply_count: 2,
      reply_users: [DEMO.bot, DEMO.wangLei],
      latest_reply: r2.ts,
    });
    expect(ws.history(DEMO.ops).map((m) => m.ts)).toEqual([parent.ts]);
    expect(ws.replies(DEMO.ops, r1.ts)?.map((m) => m.ts)).toEqual([parent.ts, r1.ts, r2.ts]);
    expect(parent.blocks).toEqual([
      expect.objectContaining({
        type: "rich_text",
        elements: [
          {
            type: "rich_text_section",
            elements: [
              { type: "user", user_id: "U0HERMES" },
              { type: "text", text: " help" },
            ],
          },
        ],
      }),
    ]);

    ws.deleteMessage(DEMO.ops, r2.ts);
    expect(ws.getMessage(DEMO.ops, parent.ts)).toMatchObject({ reply_count: 1, latest_reply: r1.ts });
    ws.deleteMessage(DEMO.ops, parent.ts);
    expect(ws.getMessage(DEMO.ops, parent.ts)).toMatchObject({
      subtype: "tombstone",
      text: "This message was deleted.",
    });
  });

  it("hides ephemerals from history and replies, and tells subscribers about every change", () => {
    const ws = seedDemoWorkspace();
    const events: WorkspaceEvent[] = [];
    const unsubscribe = ws.subscribe((e) => events.push(e));
    const m = ws.post({ channel: DEMO.general, user: DEMO.admin, text: "hi" });
    ws.postEphemeral({
      channel: DEMO.general,
      visibleTo: DEMO.admin,
      text: "psst",
      botId: DEMO.botId,
      threadTs: m.ts,
    });
    ws.updateMessage(DEMO.general, m.ts, { text: "hi all", editedBy: DEMO.admin });
    ws.deleteMessage(DEMO.general, m.ts);
    unsubscribe();
    ws.post({ channel: DEMO.general, user: DEMO.admin, text: "unseen" });

    expect(events.map((e) => e.type)).toEqual([
      "message_posted",
      "ephemeral_posted",
      "message_updated",
      "message_deleted",
    ]);
    expect(ws.history(DEMO.general).map((x) => x.text)).toEqual(["unseen"]);
    expect(ws.ephemeralMessages(DEMO.general, DEMO.admin)).toHaveLength(1);
    expect(ws.ephemeralMessages(DEMO.general, DEMO.user)).toHaveLength(0);
  });

  it("hands out unique, increasing ts even when the clock stands still or goes back", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }), { maxLength: 50 }),
        (times) => {
          let i = 0;
          const ws = new Workspace({
            now: () => times[i++ % Math.max(times.length, 1)] ?? 1_700_000_000_000,
          });
          ws.addChannel({ id: "C1", name: "c1" });
          const ts = times.map(() => ws.post({ channel: "C1", text: "x" }).ts);
          for (let k = 1; k < ts.length; k++) expect(compareTs(ts[k - 1] ?? "", ts[k] ?? "")).toBe(-1);
          expect(ts.every((t) => /^\d{10}\.\d{6}$/.test(t))).toBe(true);
        },
      ),
    );
  });
});
