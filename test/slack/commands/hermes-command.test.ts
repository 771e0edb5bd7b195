import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { registerHermesCommand } from "../../../src/slack/commands/hermes-command.ts";
import {
  type BlockLike,
  type BoltHarness,
  blocksText,
  buttonsOf,
  eventually,
  failedCalls,
  startBoltHarness,
} from "../../helpers/bolt-app.ts";

let h: BoltHarness;
const schedulesChanged: string[] = [];

beforeAll(async () => {
  h = await startBoltHarness((app, services, schedules) =>
    registerHermesCommand(app, services, {
      schedules,
      onSchedulesChanged: () => {
        schedulesChanged.push("changed");
      },
    }),
  );
});

afterAll(() => h.stop());

beforeEach(() => {
  h.emulator.clearCalls();
});

/** Sends `/hermes <text>` as `user` in `channel` and waits for the ephemeral answer. */
async function hermes(user: string, text: string, channel: string = DEMO.general): Promise<SandboxMessage> {
  const before = h.emulator.workspace.ephemeralMessages(channel, user).length;
  const started = Date.now();
  const delivery = await h.sender.slashCommand({ user, channel, text });
  expect(delivery.status).toBe(200);
  expect(Date.now() - started).toBeLessThan(3000);
  const message = await eventually(() => h.emulator.workspace.ephemeralMessages(channel, user)[before]);
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.blocks?.length ?? 0).toBeLessThanOrEqual(50);
  // Answered through the response_url: no fallback post was needed, and no call was refused.
  expect(h.emulator.callsTo("chat.postEphemeral")).toEqual([]);
  expect(failedCalls(h.emulator)).toEqual([]);
  return message;
}

describe("/hermes help, tools, whoami", () => {
  it("help explains mentions, DMs, approvals, cancel and the subcommands", async () => {
    const message = await hermes(DEMO.user, "help");
    const text = blocksText(message.blocks);
    expect(text).toMatch(/mention/i);
    expect(text).toMatch(/direct message/i);
    expect(text).toMatch(/Approve/);
    expect(text).toContain("`cancel`");
    for (const sub of ["tools", "whoami", "approvals", "audit", "schedule"]) {
      expect(text).toContain(`/hermes ${sub}`);
    }
    // Nothing but the caller sees it.
    expect(h.emulator.workspace.history(DEMO.general)).toEqual([]);
  });

  it("an empty command is help; an unknown subcommand gets a short help naming it", async () => {
    expect(blocksText((await hermes(DEMO.user, "")).blocks)).toContain("How to use it");
    const unknown = blocksText((await hermes(DEMO.user, "frobnicate <!channel> now")).blocks);
    expect(unknown).toContain("I don't know `/hermes frobnicate`");
    expect(unknown).toContain("/hermes audit");
    expect(unknown).not.toContain("How to use it");
  });

  it("tools lists what a user may use, with level, approval and a one-line description", async () => {
    const text = blocksText((await hermes(DEMO.user, "tools")).blocks);
    expect(text).toContain("(3, your level: *user*)");
    expect(text).toContain("• `create_ticket` — user · no approval — Open a ticket.");
    expect(text).not.toContain("Second line");
    expect(text).toContain("• `search_tickets` — viewer · no approval");
    expect(text).toContain(
      "• `send_message` — user · *needs approval* — Send a Slack message &lt;as Hermes&gt; &amp; wait for approval.",
    );
    expect(text).not.toContain("delete_ticket");

    const admin = blocksText((await hermes(DEMO.admin, "tools")).blocks);
    expect(admin).toContain("(4, your level: *admin*)");
    expect(admin).toContain("• `delete_ticket` — admin · *needs approval*");
  });

  it("tools follows the user's stored level: a viewer sees only viewer tools", async () => {
    await h.services.storage.users.setLevel(DEMO.wangLei, "viewer");
    const text = blocksText((await hermes(DEMO.wangLei, "tools")).blocks);
    expect(text).toContain("(1, your level: *viewer*)");
    expect(text).toContain("search_tickets");
    expect(text).not.toContain("create_ticket");
    await h.services.storage.users.setLevel(DEMO.wangLei, "user");
  });

  it("whoami: id, level, allowed tool count, admin or not", async () => {
    const user = blocksText((await hermes(DEMO.user, "whoami")).blocks);
    expect(user).toContain(`You are <@${DEMO.user}> (\`${DEMO.user}\`)`);
    expect(user).toContain("Level: *user* — not an admin.");
    expect(user).toContain("You may use *3* of 4 tools");

    const admin = blocksText((await hermes(DEMO.admin, "whoami")).blocks);
    expect(admin).toContain("Level: *admin* — you are an admin");
    expect(admin).toContain("You may use *4* of 4 tools");
  });

  it("answers in a DM with the bot too", async () => {
    const message = await hermes(DEMO.user, "whoami", DEMO.dmUser);
    expect(blocksText(message.blocks)).toContain("Level: *user*");
  });
});

describe("/hermes approvals", () => {
  const create = (requesterId: string, tool: string, args: Record<string, unknown>, n: number) =>
    h.services.storage.approvals.create({
      tool,
      args,
      requesterId,
      sessionKey: `T0001:C0OPS:1764420000.00010${n}`,
      runId: `run_${n}`,
      toolCallId: `call_${n}`,
      teamId: DEMO.team,
      channelId: DEMO.ops,
      threadTs: `1764420000.00010${n}`,
    });

  it("shows the caller's own pending approvals as cards with buttons; admins see all", async () => {
    const mine = await create(DEMO.user, "send_message", { to: DEMO.wangLei, text: "hi <there>" }, 1);
    const theirs = await create(DEMO.wangLei, "send_message", { to: DEMO.user, text: "yo" }, 2);
    const adminOwn = await create(DEMO.admin, "delete_ticket", { id: 7 }, 3);

    const userView = await hermes(DEMO.user, "approvals");
    expect(blocksText(userView.blocks)).toContain("*Pending approvals you can decide* (1)");
    const userButtons = buttonsOf(userView.blocks);
    expect(userButtons).toEqual([
      expect.objectContaining({ action_id: "hermes.approve", value: mine.id }),
      expect.objectContaining({ action_id: "hermes.reject", value: mine.id }),
    ]);
    expect(blocksText(userView.blocks)).toContain("Asked in <#C0OPS>");
    expect(blocksText(userView.blocks)).toContain("&lt;there&gt;");

    const adminView = await hermes(DEMO.admin, "approvals");
    expect(blocksText(adminView.blocks)).toContain("(3)");
    const values = buttonsOf(adminView.blocks).map((b) => `${b.action_id}:${b.value}`);
    expect(values).toEqual(
      [mine.id, theirs.id, adminOwn.id].flatMap((id) => [`hermes.approve:${id}`, `hermes.reject:${id}`]),
    );
    // The dangerous tool's Approve asks for confirmation, as on the card in the thread.
    const approveDelete = (adminView.blocks as BlockLike[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === "hermes.approve" && e.value === adminOwn.id);
    expect(approveDelete).toHaveProperty("confirm");
    const ids = (adminView.blocks as BlockLike[]).flatMap((b) => (b.block_id ? [b.block_id] : []));
    expect(new Set(ids).size).toBe(ids.length);

    // Someone with nothing to decide.
    await h.services.storage.approvals.decide({
      approvalId: mine.id,
      deciderId: DEMO.user,
      deciderLevel: "user",
      decision: "rejected",
    });
    await h.services.storage.approvals.decide({
      approvalId: theirs.id,
      deciderId: DEMO.admin,
      deciderLevel: "admin",
      decision: "rejected",
    });
    await h.services.storage.approvals.decide({
      approvalId: adminOwn.id,
      deciderId: DEMO.admin,
      deciderLevel: "admin",
      decision: "rejected",
    });
    const none = await hermes(DEMO.user, "approvals");
    expect(blocksText(none.blocks)).toContain("No pending approvals you can decide.");
  });

  it("many approvals stay within 50 blocks and say how many more there are", async () => {
    const created = [];
    for (let i = 0; i < 14; i++) {
      created.push(
        await create(DEMO.wangLei, "send_message", { to: DEMO.user, text: "x".repeat(500 * i) }, 10 + i),
      );
    }
    const message = await hermes(DEMO.admin, "approvals");
    expect(message.blocks?.length ?? 0).toBeLessThanOrEqual(50);
    const shown = new Set(buttonsOf(message.blocks).map((b) => b.value));
    expect(shown.size).toBeGreaterThan(0);
    expect(shown.size).toBeLessThan(14);
    expect(blocksText(message.blocks)).toContain(`…and ${14 - shown.size} more pending approvals.`);
    for (const a of created) {
      await h.services.storage.approvals.decide({
        approvalId: a.id,
        deciderId: DEMO.admin,
        deciderLevel: "admin",
        decision: "rejected",
      });
    }
  });
});

describe("/hermes audit: refusals and bad filters", () => {
  it("refuses a user, and the refusal is in the audit log", async () => {
    const message = await hermes(DEMO.user, "audit since:24h");
    expect(message.text).toBe("Only admins can query the audit log.");
    const { rows } = await h.services.storage.audit.query({ user: DEMO.user, action: "tool.denied" });
    expect(rows[0]).toMatchObject({
      tool: "/hermes",
      userId: DEMO.user,
      channelId: DEMO.general,
      args: { subcommand: "audit" },
      error: "Only admins can query the audit log.",
    });
  });

  it("a bad filter gets one line naming it", async () => {
    const cases: Array<[string, string]> = [
      ["audit colour:red", "Unknown filter `colour:`"],
      ["audit since:yesterday", 'Bad `since:` filter: "yesterday" is not a time'],
      ["audit action:exploded", "`action:exploded` is not an audit action"],
      // A name is looked up in the workspace; an unknown one names the close matches.
      [
        "audit user:@li.mnig",
        "`user:` No one named @li.mnig is in this workspace. Did you mean @li.ming (Li Ming)?",
      ],
      [
        'audit user:"Wang Le"',
        '`user:` No one named "Wang Le" is in this workspace. Did you mean @wang.lei (Wang Lei)?',
      ],
      ["audit 24h", "`24h` is not a filter"],
      ["audit since:2026-11-02 until:2026-11-01", "`since:` must be before `until:`"],
    ];
    for (const [text, expected] of cases) {
      const message = await hermes(DEMO.admin, text);
      expect(message.text).toContain(expected);
      expect(message.text.split("\n")).toHaveLength(1);
    }
  });
});

describe("/hermes schedule", () => {
  it("admins add, list and remove schedules; the change callback runs; users are refused", async () => {
    const added = await hermes(
      DEMO.admin,
      'schedule add "0 9 * * 1-5" <#C0OPS|ops> "summarize urgent open tickets"',
    );
    expect(added.text).toMatch(/^Added schedule \*(\d+)\*/);
    const id = /\*(\d+)\*/.exec(added.text)?.[1];
    expect(schedulesChanged).toEqual(["changed"]);
    expect((await h.schedules.list())[0]).toMatchObject({ ownerId: DEMO.admin, channelId: DEMO.ops });

    const list = await hermes(DEMO.admin, "schedule list");
    expect(list.text).toContain("summarize urgent open tickets");

    const bad = await hermes(DEMO.admin, "schedule add 0 9 * * * #ops hi");
    expect(bad.text).toContain("Put the cron pattern in quotes");

    const refused = await hermes(DEMO.user, "schedule list");
    expect(refused.text).toBe("Only admins can manage schedules.");

    const removed = await hermes(DEMO.admin, `schedule remove ${id}`);
    expect(removed.text).toBe(`Removed schedule *${id}*.`);
    expect(schedulesChanged).toEqual(["changed", "changed"]);
    expect(await h.schedules.list()).toEqual([]);
  });
});

describe("delivery", () => {
  it("falls back to chat.postEphemeral when the response_url refuses the answer", async () => {
    const before = h.emulator.workspace.ephemeralMessages(DEMO.general, DEMO.user).length;
    const delivery = await h.sender.slashCommand({
      user: DEMO.user,
      channel: DEMO.general,
      text: "whoami",
      responseUrl: `${h.emulator.origin}/response/not-a-minted-url`,
    });
    expect(delivery.status).toBe(200);
    const message = await eventually(
      () => h.emulator.workspace.ephemeralMessages(DEMO.general, DEMO.user)[before],
    );
    expect(blocksText(message.blocks)).toContain("Level: *user*");
    expect(h.emulator.callsTo("chat.postEphemeral")).toHaveLength(1);
    expect(failedCalls(h.emulator)).toEqual([]);
  });
});
