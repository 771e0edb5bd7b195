import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { assistantThreadsOf } from "../../../src/sandbox/assistant-threads.ts";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import { execSql } from "../../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";
import { captureLog } from "../../helpers/trace-capture.ts";

type Block = { type: string; elements?: Array<{ action_id?: string; value?: string }> };

/**
 * Hermes in Slack's assistant split view, end to end: the real Bolt app over HTTP, its Web API client
 * on the emulator (which keeps the assistant threads), Postgres, and the scripted model.
 */
describe("assistant threads through Bolt's Assistant", () => {
  const model = new ScriptedModelServer();
  const log = captureLog();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, logger: log.logger, env: { HERMES_SLACK_SURFACE: "assistant_view" } });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  const threads = () => assistantThreadsOf(t.ws);
  const botReplies = (channel: string, threadTs: string) =>
    (t.thread(channel, threadTs) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== threadTs);
  const statusCalls = (threadTs: string) =>
    t.emulator
      .callsTo("assistant.threads.setStatus")
      .filter((c) => c.args.thread_ts === threadTs)
      .map((c) => ({
        status: String(c.args.status),
        loading: c.args.loading_messages === undefined ? [] : parseList(c.args.loading_messages),
        ok: c.response?.ok,
      }));

  async function openThread(user: string, viewing?: string) {
    const { thread, delivery } = await t.sender.assistantThreadStarted({
      user,
      ...(viewing ? { viewing } : {}),
    });
    expect(delivery.status).toBe(200);
    const greeted = await waitFor(
      () => {
        const now = threads().get(thread.channel, thread.threadTs);
        return now?.prompts && botReplies(thread.channel, thread.threadTs).length > 0 ? now : undefined;
      },
      30_000,
      "greeting and suggested prompts",
    );
    return { ...greeted, delivery };
  }

  it("a new thread gets a greeting and suggested prompts by the user's level", async () => {
    const member = await openThread("U0USER1", "C0OPS");
    expect(member.prompts!.prompts.map((p) => p.title)).toEqual([
      "Open a ticket…",
      "Report of this week's tickets",
    ]);
    const greeting = botReplies(member.channel, member.threadTs)[0]!;
    expect(greeting.text).toContain("Hermes");
    // The greeting carries the thread's context (Bolt's thread context store reads it back).
    expect(greeting.metadata).toMatchObject({
      event_type: "assistant_thread_context",
      event_payload: { channel_id: "C0OPS" },
    });

    // A Slack retry of the same event greets nobody twice.
    const again = await t.sender.redeliver(member.delivery);
    expect(again.status).toBe(200);
    const greetings = () => botReplies(member.channel, member.threadTs).length;
    await waitFor(
      () =>
        log.lines.find(
          (l) => l.msg === "duplicate delivery ignored" && l.eventId === member.delivery.eventId,
        ),
      30_000,
      "the retry seen as a duplicate",
    );
    expect(greetings()).toBe(1);
    expect(t.emulator.callsTo("assistant.threads.setSuggestedPrompts")).toHaveLength(1);

    const admin = await openThread("U0ADMIN");
    expect(admin.prompts!.prompts.map((p) => p.title)).toEqual([
      "Open a ticket…",
      "Report of this week's tickets",
      "Tickets by assignee, last 30 days",
    ]);
    expect(model.requests).toHaveLength(0);
  });

  it("a message in the thread: one turn, the status names the running tool and clears, title set, answer in the thread", async () => {
    const thread = await openThread("U0USER1");
    t.emulator.clearCalls();
    model.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "VPN down on floor 3", priority: "high" } }]),
      answer("Opened ticket **#1** for the VPN."),
    );
    const d = await t.sender.messageIm({
      user: "U0USER1",
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "Open a ticket: the VPN is down on floor 3, mail me at li.ming@example.com",
    });
    expect(d.status).toBe(200);
    const reply = await waitFor(
      () => botReplies(thread.channel, thread.threadTs).find((m) => m.text.includes("#1")),
      30_000,
      "answer in the assistant thread",
    );
    expect(reply.thread_ts).toBe(thread.threadTs);
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");

    // Exactly one turn: two model calls (the tool call, then the answer), one run, no working message.
    expect(model.requests).toHaveLength(2);
    const runs = await execSql<{ n: number }>(
      t.hermes.services.storage.db.db,
      `select count(*)::int as n from runs where session_key like '%:${thread.threadTs}'`,
    );
    expect(runs[0]!.n).toBe(1);
    const texts = botReplies(thread.channel, thread.threadTs).map((m) => m.text);
    expect(texts.some((x) => x.includes("Working on it"))).toBe(false);
    expect(t.emulator.callsTo("chat.update")).toHaveLength(0);

    const statuses = statusCalls(thread.threadTs);
    expect(statuses.every((s) => s.ok)).toBe(true);
    expect(statuses[0]).toMatchObject({ status: "is thinking…" });
    const running = statuses.find((s) => s.status === "is running create_ticket…");
    expect(running?.loading).toEqual(["Running create_ticket…"]);
    expect(statuses.indexOf(running!)).toBeLessThan(statuses.length - 1);
    expect(threads().get(thread.channel, thread.threadTs)!.status).toBe("");

    // The title: from the first request, redacted, short.
    const titled = t.emulator.callsTo("assistant.threads.setTitle");
    expect(titled).toHaveLength(1);
    const title = String(titled[0]!.args.title);
    expect(title).not.toContain("li.ming@example.com");
    expect(title.length).toBeLessThanOrEqual(60);
    expect(threads().get(thread.channel, thread.threadTs)!.title).toBe(title);

    // A second message in the thread is a second turn of the same session, and keeps the title.
    model.enqueue(answer("It is high priority."));
    await t.sender.messageIm({
      user: "U0USER1",
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "How urgent is it?",
    });
    await waitFor(
      () => botReplies(thread.channel, thread.threadTs).find((m) => m.text === "It is high priority."),
      30_000,
      "second answer",
    );
    expect(t.emulator.callsTo("assistant.threads.setTitle")).toHaveLength(1);
    const history = model.requests.at(-1)!.body.messages;
    expect(history.some((m) => m.role === "tool")).toBe(true); // the first turn's history came along
  });

  it("a turn that fails says so in the thread and the status is cleared", async () => {
    const thread = await openThread("U0USER1");
    t.emulator.clearCalls();
    model.enqueue({ status: 500, body: { error: { message: "model exploded" } } });
    await t.sender.messageIm({
      user: "U0USER1",
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "What is open?",
    });
    const reply = await waitFor(
      () => botReplies(thread.channel, thread.threadTs).find((m) => m.text.includes(":warning:")),
      30_000,
      "failure sentence",
    );
    expect(reply.text).toMatch(/run `[0-9a-f-]{36}`/); // a sentence with the run id, no stack
    expect(reply.text).not.toMatch(/\n\s+at /);
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");
    expect(threads().get(thread.channel, thread.threadTs)!.status).toBe("");
  });

  it("an approval card in the thread clears the status; approving runs the call in the status line and answers", async () => {
    const thread = await openThread("U0USER1");
    t.emulator.clearCalls();
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "Standup moved to 10:30" } }]),
    );
    await t.sender.messageIm({
      user: "U0USER1",
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "Tell Wang Lei standup moved to 10:30",
    });
    const card = await waitFor(
      () =>
        botReplies(thread.channel, thread.threadTs).find((m) =>
          ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"),
        ),
      30_000,
      "approval card",
    );
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");
    expect(threads().get(thread.channel, thread.threadTs)!.status).toBe("");
    const approvalId = ((card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value ??
      "") as string;
    // The paused run remembers it belongs to an assistant thread (its snapshot's run identity).
    const kept = await execSql<{ assistant: string | null }>(
      t.hermes.services.storage.db.db,
      `select snapshot->'run'->>'assistantThread' as assistant from runs where status = 'paused' and session_key like '%:${thread.threadTs}'`,
    );
    expect(kept).toEqual([{ assistant: "true" }]);
    const statusesBefore = statusCalls(thread.threadTs).length;
    model.enqueue(answer("Told Wang Lei."));
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalId,
      channel: thread.channel,
      messageTs: card.ts,
    });
    await waitFor(
      () => botReplies(thread.channel, thread.threadTs).find((m) => m.text === "Told Wang Lei."),
      30_000,
      "answer after approval",
    );
    expect(t.ws.history("D0WANGLEI").some((m) => m.text.includes("Standup moved to 10:30"))).toBe(true);

    // The resume shows the status line as the turn did: naming the running tool, then cleared; no
    // "Continuing…" message and no working message updated.
    await waitFor(() => statusCalls(thread.threadTs).at(-1)?.status === "", 30_000, "status cleared");
    const resumed = statusCalls(thread.threadTs).slice(statusesBefore);
    expect(resumed.every((x) => x.ok)).toBe(true);
    const running = resumed.find((x) => x.status === "is running send_message…");
    expect(running?.loading).toEqual(["Running send_message…"]);
    expect(resumed.indexOf(running!)).toBeLessThan(resumed.length - 1);
    expect(threads().get(thread.channel, thread.threadTs)!.status).toBe("");
    const texts = botReplies(thread.channel, thread.threadTs).map((m) => m.text);
    expect(texts.some((x) => x.includes("Continuing"))).toBe(false);
    expect(texts.some((x) => x.includes("Working on it"))).toBe(false);
  });

  it("the channel the user views reaches the turn fenced as untrusted data, and follows context changes", async () => {
    const thread = await openThread("U0USER1", "C0GENERAL");
    const changed = await t.sender.assistantThreadContextChanged({
      channel: thread.channel,
      threadTs: thread.threadTs,
      viewing: "C0OPS",
    });
    expect(changed.status).toBe(200);
    const greetingTs = botReplies(thread.channel, thread.threadTs)[0]!.ts;
    await waitFor(
      () =>
        (t.ws.getMessage(thread.channel, greetingTs)?.metadata as { event_payload?: { channel_id?: string } })
          ?.event_payload?.channel_id === "C0OPS",
      30_000,
      "context saved on the greeting",
    );
    model.enqueue(answer("Nothing urgent in #ops."));
    await t.sender.messageIm({
      user: "U0USER1",
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "Anything urgent here?",
    });
    await waitFor(
      () => botReplies(thread.channel, thread.threadTs).find((m) => m.text === "Nothing urgent in #ops."),
      30_000,
      "answer",
    );
    const messages = model.requests[0]!.body.messages;
    const user = String(messages.at(-1)!.content);
    expect(user).toContain(
      '<untrusted source="slack-assistant-context">\nviewing channel: <#C0OPS>\n</untrusted>',
    );
    expect(user.endsWith("Anything urgent here?")).toBe(true);
    expect(user).not.toContain("C0GENERAL");
    // Only inside the fence: no other message (the system prompt included) names the channel.
    const elsewhere = messages.slice(0, -1).map((m) => String(m.content ?? ""));
    expect(elsewhere.some((c) => c.includes("C0OPS"))).toBe(false);
  });

  it("a plain thread in the DM (not an assistant thread) is answered once, with a working message", async () => {
    model.enqueue(answer("First."), answer("Second."));
    const first = await t.sender.messageIm({ user: "U0WANGLEI", text: "hello" });
    const dm = first.message!.channel;
    await waitFor(() => botReplies(dm, first.message!.ts).find((m) => m.text === "First."), 30_000, "first");
    await t.sender.messageIm({ user: "U0WANGLEI", text: "and again", threadTs: first.message!.ts });
    await waitFor(
      () => botReplies(dm, first.message!.ts).find((m) => m.text === "Second."),
      30_000,
      "second",
    );
    expect(model.requests).toHaveLength(2);
    const working = t.emulator
      .callsTo("chat.postMessage")
      .filter((c) => String(c.args.text).includes("Working on it"));
    expect(working).toHaveLength(2);
    expect(
      botReplies(dm, first.message!.ts).filter((m: SandboxMessage) => m.text === "Second."),
    ).toHaveLength(1);
  });
});

function parseList(value: unknown): string[] {
  return (typeof value === "string" ? JSON.parse(value) : value) as string[];
}
