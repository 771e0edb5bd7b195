import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { sql } from "../../src/store/drizzle.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies, settledReplies } from "../helpers/slack-thread.ts";

type Block = {
  type: string;
  elements?: Array<{ action_id?: string; value?: string; text?: unknown }>;
  text?: { text: string };
};

const textOf = (m: SandboxMessage) =>
  [
    m.text,
    ...((m.blocks ?? []) as Block[]).flatMap((b) => [
      b.text?.text ?? "",
      ...(b.type === "context" ? (b.elements ?? []).map((e) => String(e.text ?? "")) : []),
    ]),
  ].join("\n");
const cardOf = (t: TestHermes, channel: string, ts: string) =>
  botReplies(t, channel, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
const approvalIdOf = (card: SandboxMessage) =>
  ((card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value ?? "") as string;

describe("the Slack app over real HTTP (Bolt receiver, Web API emulator, Postgres)", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  it("mention in a channel → a working message, then the answer in the thread", async () => {
    model.enqueue(answer("The VPN gateway restarts nightly at **02:00**."));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> when does the VPN restart?",
    });
    expect(d.status).toBe(200);
    const ts = d.message!.ts;
    const reply = await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("02:00")),
      30_000,
      "answer",
    );
    expect(reply.text).toContain("*02:00*"); // Markdown became mrkdwn
    // The answer is a message of its own (no "(edited)"), posted below the working message, which is removed.
    expect(reply.edited).toBeUndefined();
    await waitFor(() => botReplies(t, "C0OPS", ts).length === 1, 30_000, "working message removed");
    expect(botReplies(t, "C0OPS", ts).map((m) => m.ts)).toEqual([reply.ts]);
    expect(t.emulator.callsTo("chat.update").some((c) => String(c.args.text).includes("02:00"))).toBe(false);
    expect(model.requests[0]!.body.messages.at(-1)!.content).toBe("when does the VPN restart?");
  });

  it("a DM is always answered (no mention needed)", async () => {
    model.enqueue(answer("Hello Li Ming."));
    const d = await t.sender.messageIm({ user: "U0USER1", text: "hi" });
    await waitFor(
      () => botReplies(t, d.message!.channel, d.message!.ts).find((m) => m.text === "Hello Li Ming."),
      30_000,
      "DM answer",
    );
  });

  it("bot messages, edits, deletions and joins are ignored", async () => {
    for (const subtype of ["bot_message", "message_changed", "message_deleted", "channel_join"] as const) {
      const d = await t.sender.message({ subtype, channel: "D0USER1", user: "U0USER1", text: "hi" } as never);
      expect(d.status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 500));
    expect(model.requests).toHaveLength(0);
    expect(t.emulator.callsTo("chat.postMessage")).toHaveLength(0);
  });

  it("a redelivery of an event already taken runs one turn", async () => {
    model.enqueue({ ...(answer("Once.") as { completion: Record<string, unknown> }), delayMs: 300 });
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> once please",
    });
    const again = await t.sender.redeliver(d, { retryNum: 1, retryReason: "http_timeout" });
    expect(again.status).toBe(200);
    await waitFor(
      () => botReplies(t, "C0OPS", d.message!.ts).find((m) => m.text === "Once."),
      30_000,
      "answer",
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(model.requests).toHaveLength(1);
    expect(await settledReplies(t, "C0OPS", d.message!.ts)).toHaveLength(1);
  });

  it("a turn job handed out again after its event finished does not run again", async () => {
    model.enqueue(answer("Only once."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> only once" });
    await waitFor(
      () => botReplies(t, "C0OPS", d.message!.ts).find((m) => m.text === "Only once."),
      30_000,
      "answer",
    );
    // The same event's job, as a queue would redeliver it (another job id, e.g. after a stalled worker).
    await t.hermes.services.queue.enqueue(
      {
        type: "turn",
        sessionKey: `T0001:C0OPS:${d.message!.ts}`,
        teamId: "T0001",
        channelId: "C0OPS",
        threadTs: d.message!.ts,
        userId: "U0USER1",
        text: "only once",
        eventId: d.eventId!,
        messageTs: d.message!.ts,
        isDm: false,
      },
      { jobId: `again:${d.eventId}` },
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(model.requests).toHaveLength(1);
    expect(await settledReplies(t, "C0OPS", d.message!.ts)).toHaveLength(1);
  });

  it("a bad signature gets 401 and nothing happens", async () => {
    const d = await t.sender.appMention(
      { user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" },
      { badSignature: true },
    );
    expect(d.status).toBe(401);
    const old = await t.sender.appMention(
      { user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" },
      { oldTimestamp: true },
    );
    expect(old.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(model.requests).toHaveLength(0);
  });

  it("a model failure → one short sentence with the run id, no stack", async () => {
    model.fallback = { status: 500 };
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" });
    const reply = await waitFor(
      () => botReplies(t, "C0OPS", d.message!.ts).find((m) => m.text.includes("Reference")),
      30_000,
      "error",
    );
    expect(reply.text).toMatch(
      /^:warning: I could not get an answer from the model: .*HTTP 500.*\n_Reference: run `[0-9a-f-]{36}`_$/,
    );
    expect(reply.text).not.toMatch(/\bat .+\.ts:\d+/);
  });

  it("a long answer is split within Slack's limits", async () => {
    const para = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(50);
    model.enqueue(answer(Array.from({ length: 5 }, (_, i) => `## Part ${i}\n\n${para}`).join("\n\n")));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> write a lot",
    });
    const replies = await waitFor(
      () => {
        const r = botReplies(t, "C0OPS", d.message!.ts);
        return r.length >= 2 && r.every((m) => !m.text.includes("Working on it")) ? r : undefined;
      },
      30_000,
      "split answer",
    );
    for (const m of replies) {
      expect(m.blocks!.length).toBeLessThanOrEqual(50);
      // Every text section within Slack's limit (the last message also ends with the 👍/👎 block).
      for (const b of (m.blocks as Block[]).filter((b) => b.type === "section"))
        expect(b.text!.text.length).toBeLessThanOrEqual(3000);
    }
    expect(t.emulator.calls.filter((c) => (c.response as { ok?: boolean }).ok === false)).toEqual([]);
  });

  it("a rate-limited progress update is dropped; the answer is not delayed", async () => {
    // chat.update is limited (Slack asks for 30 s): progress is dropped, and the answer (always a new
    // reply) does not wait for it. A Hermes of its own:
    // it keeps honouring those 30 s for chat.update (as Slack would still refuse it), which the other
    // tests here must not inherit.
    const own = await startTestHermes({ model });
    own.emulator.faults.rateLimit("chat.update", { times: 50, retryAfterSeconds: 30 });
    try {
      model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer("It is 10:00."));
      const started = Date.now();
      const d = await own.sender.appMention({
        user: "U0USER1",
        channel: "C0OPS",
        text: "<@U0HERMES> what time is it?",
      });
      const reply = await waitFor(
        () => botReplies(own, "C0OPS", d.message!.ts).find((m) => m.text.includes("10:00")),
        30_000,
        "answer",
      );
      expect(Date.now() - started).toBeLessThan(8000); // not the 30 s Slack asked to wait
      expect(reply.text).toBe("It is 10:00.");
      // No update got through (Slack refused each one tried: progress dropped), and the answer is no update.
      expect(own.emulator.callsTo("chat.update").filter((c) => c.response?.ok === true)).toEqual([]);
      expect(reply.edited).toBeUndefined();
      // The working message is removed (chat.delete is a budget of its own).
      await waitFor(
        () => botReplies(own, "C0OPS", d.message!.ts).length === 1,
        30_000,
        "working message removed",
      );
    } finally {
      await own.stop();
    }
  });

  describe("approvals", () => {
    async function pausedSend(user = "U0USER1") {
      model.enqueue(
        toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "I'll join at three" } }]),
      );
      const d = await t.sender.appMention({
        user,
        channel: "C0OPS",
        text: "<@U0HERMES> tell Wang Lei I'll join at three",
      });
      const card = await waitFor(() => cardOf(t, "C0OPS", d.message!.ts), 30_000, "approval card");
      return { ts: d.message!.ts, card, approvalId: approvalIdOf(card) };
    }
    const sentToWangLei = () => t.ws.history("D0WANGLEI").filter((m) => m.text.includes("join at three"));

    it("the requester approves: the call runs once, the card shows who and the outcome, the run answers", async () => {
      const before = sentToWangLei().length;
      const { ts, card, approvalId } = await pausedSend();
      expect(textOf(card)).toContain("<@U0USER1> asked me to run `send_message`");
      expect(textOf(card)).toContain('"text": "I\'ll join at three"');
      expect(sentToWangLei()).toHaveLength(before); // nothing sent before approval
      model.enqueue(answer("Told Wang Lei."));
      const click = await t.sender.blockAction({
        user: "U0USER1",
        actionId: "hermes.approve",
        value: approvalId,
        channel: "C0OPS",
        messageTs: card.ts,
      });
      expect(click.status).toBe(200);
      await waitFor(
        () => botReplies(t, "C0OPS", ts).find((m) => m.text === "Told Wang Lei."),
        30_000,
        "answer after approval",
      );
      expect(sentToWangLei()).toHaveLength(before + 1);
      expect(sentToWangLei().at(-1)!.text).toContain("sent by Hermes on behalf of <@U0USER1>");
      const updated = await waitFor(
        () => {
          const m = t.ws.getMessage("C0OPS", card.ts);
          return m && textOf(m).includes("Result:") ? m : undefined;
        },
        30_000,
        "card outcome",
      );
      expect(((updated.blocks ?? []) as Block[]).some((b) => b.type === "actions")).toBe(false);
      expect(textOf(updated)).toContain("Approved by <@U0USER1>");
      const actions = (await t.hermes.services.storage.audit.query({ limit: 20 })).rows
        .filter((r) => r.tool === "send_message")
        .map((r) => r.action);
      expect(actions.slice(0, 4)).toEqual([
        "tool.executed",
        "tool.approved",
        "tool.approval_requested",
        "tool.requested",
      ]);
    });

    it("someone else is refused (ephemeral), an admin may approve, and a double click runs once", async () => {
      const before = sentToWangLei().length;
      const { ts, card, approvalId } = await pausedSend();
      await t.sender.blockAction({
        user: "U0WANGLEI",
        actionId: "hermes.approve",
        value: approvalId,
        channel: "C0OPS",
        messageTs: card.ts,
      });
      await waitFor(
        () =>
          t.ws
            .ephemeralMessages("C0OPS", "U0WANGLEI")
            .find((m) => m.text.includes("only the requester or an admin")),
        30_000,
        "refusal",
      );
      model.enqueue(answer("Done by admin approval."));
      // The admin's double click: both at once. (Which of two different deciders wins a race is
      // whichever Postgres takes first: test/policy/approval-concurrency and approval-attacks race
      // approves against rejects; here the admin's approval must be the decision.)
      const approve = () =>
        t.sender.blockAction({
          user: "U0ADMIN",
          actionId: "hermes.approve",
          value: approvalId,
          channel: "C0OPS",
          messageTs: card.ts,
        });
      await Promise.all([approve(), approve()]);
      // The requester's reject, once the admin has decided: too late.
      await t.sender.blockAction({
        user: "U0USER1",
        actionId: "hermes.reject",
        value: approvalId,
        channel: "C0OPS",
        messageTs: card.ts,
      });
      await waitFor(
        () => botReplies(t, "C0OPS", ts).find((m) => m.text === "Done by admin approval."),
        30_000,
        "answer",
      );
      expect(sentToWangLei()).toHaveLength(before + 1);
      await waitFor(
        () =>
          t.ws
            .ephemeralMessages("C0OPS")
            .filter((m) => m.text.startsWith("This was already approved by <@U0ADMIN>")).length >= 2,
        30_000,
        "losers told",
      );
      const audit = (
        await t.hermes.services.storage.audit.query({ tool: "send_message", limit: 50 })
      ).rows.filter((r) => r.approvalId === approvalId);
      expect(audit.filter((r) => r.action === "tool.approved")).toHaveLength(1);
      expect(audit.filter((r) => r.action === "tool.denied" && r.actorId === "U0WANGLEI")).toHaveLength(1);
    });

    it("typing yes does not approve; cancel from the requester rejects", async () => {
      const before = sentToWangLei().length;
      const { ts, card } = await pausedSend();
      await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> yes", threadTs: ts });
      await waitFor(
        () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("does not approve")),
        30_000,
        "use the card",
      );
      model.enqueue(answer("OK, I did not send it."));
      await t.sender.appMention({
        user: "U0USER1",
        channel: "C0OPS",
        text: "<@U0HERMES> cancel",
        threadTs: ts,
      });
      await waitFor(
        () => botReplies(t, "C0OPS", ts).find((m) => m.text === "OK, I did not send it."),
        30_000,
        "answer after cancel",
      );
      expect(sentToWangLei()).toHaveLength(before);
      expect(textOf(t.ws.getMessage("C0OPS", card.ts)!)).toContain("Rejected by <@U0USER1>");
      const rejected = model.requests.at(-1)!.body.messages.find((m) => m.role === "tool")!;
      expect(rejected.content).toContain("rejected this call");
    });

    it("delete_ticket (admin only, dangerous): a user cannot even ask for it; an admin's card asks for confirmation", async () => {
      await t.hermes.services.storage.db.db.execute(
        // A ticket of this workspace (rows are scoped by team: core/tenant.ts).
        sql`insert into tickets (title, created_by, team_id) values ('Old printer', 'U0ADMIN', ${t.ws.team.id})`,
      );
      const [row] = (
        await t.hermes.services.storage.db.db.execute<{ id: number }>(
          sql`select max(id)::int as id from tickets`,
        )
      ).rows;
      const id = row!.id;
      // A user: the model is not even offered the tool, and a call to it is denied (not "unknown").
      model.enqueue((req) => {
        expect(req.body.tools!.map((x) => x.function.name)).not.toContain("delete_ticket");
        return toolCalls([{ name: "delete_ticket", args: { id } }]);
      }, answer("I can't do that."));
      const u = await t.sender.appMention({
        user: "U0USER1",
        channel: "C0OPS",
        text: `<@U0HERMES> delete ticket ${id}`,
      });
      await waitFor(
        () => botReplies(t, "C0OPS", u.message!.ts).find((m) => m.text === "I can't do that."),
        30_000,
        "user answer",
      );
      expect(model.requests.at(-1)!.body.messages.find((m) => m.role === "tool")!.content).toContain(
        "permission denied (delete_ticket needs level admin; the requester is user)",
      );
      // The admin: a card with a confirm dialog on Approve; after approval the ticket is gone.
      model.enqueue(toolCalls([{ name: "delete_ticket", args: { id } }]), answer(`Deleted ticket #${id}.`));
      const a = await t.sender.appMention({
        user: "U0ADMIN",
        channel: "C0OPS",
        text: `<@U0HERMES> delete ticket ${id}`,
      });
      const card = await waitFor(() => cardOf(t, "C0OPS", a.message!.ts), 30_000, "card");
      const approve = (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0] as Record<
        string,
        unknown
      >;
      expect(approve.confirm).toBeDefined();
      await t.sender.blockAction({
        user: "U0ADMIN",
        actionId: "hermes.approve",
        value: approvalIdOf(card),
        channel: "C0OPS",
        messageTs: card.ts,
      });
      await waitFor(
        () => botReplies(t, "C0OPS", a.message!.ts).find((m) => m.text === `Deleted ticket #${id}.`),
        30_000,
        "answer",
      );
      const left = await t.hermes.services.storage.db.db.execute<{ n: number }>(
        sql`select count(*)::int as n from tickets where id = ${id}`,
      );
      expect(left.rows[0]!.n).toBe(0);
    });

    it("an expired approval updates its card and the run continues with a rejection", async () => {
      const before = sentToWangLei().length;
      const { ts, card, approvalId } = await pausedSend();
      await t.hermes.services.storage.db.db.execute(
        sql`update approvals set expires_at = now() - interval '1 second' where id = ${approvalId}`,
      );
      model.enqueue(answer("The approval expired, so nothing was sent."));
      const { expireApprovals } = await import("../../src/boot/background-work.ts");
      expect(await expireApprovals(t.hermes.services)).toBe(1);
      await waitFor(
        () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("expired, so nothing was sent")),
        30_000,
        "answer",
      );
      expect(textOf(t.ws.getMessage("C0OPS", card.ts)!)).toContain("Expired");
      expect(sentToWangLei()).toHaveLength(before);
      // A click after expiry runs nothing.
      await t.sender.blockAction({
        user: "U0USER1",
        actionId: "hermes.approve",
        value: approvalId,
        channel: "C0OPS",
        messageTs: card.ts,
      });
      await waitFor(
        () =>
          t.ws
            .ephemeralMessages("C0OPS", "U0USER1")
            .find((m) => m.text.startsWith("This was already expired")),
        30_000,
        "late click",
      );
      expect(sentToWangLei()).toHaveLength(before);
    });
  });
});
