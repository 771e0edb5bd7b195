import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TurnResult } from "../../../src/agent/run/runtime-types.ts";
import type { TraceEvent } from "../../../src/agent/run/trace.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createRedactor } from "../../../src/policy/redact.ts";
import { assistantThreadsOf } from "../../../src/sandbox/assistant-threads.ts";
import { postAsUser } from "../../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { planAnswer } from "../../../src/slack/answer-blocks.ts";
import { createAssistantStatus } from "../../../src/slack/assistant/assistant-status.ts";
import { showResult } from "../../../src/slack/deliver-result.ts";
import { feedbackBlock } from "../../../src/slack/feedback-block.ts";
import { CallScheduler } from "../../../src/slack/rate-limit/call-scheduler.ts";
import { PacedWebClient } from "../../../src/slack/rate-limit/paced-web-client.ts";
import { createStreamedAnswers } from "../../../src/slack/stream/streamed-answers.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
import { type TicketLinks, ticketLinks } from "../../../src/slack/work-objects/ticket-links.ts";
import { openWorkingMessage } from "../../../src/slack/working-message.ts";
import { waitFor } from "../../helpers/hermes-harness.ts";
import { quietSlackLogger, startSlackEmulator } from "../../helpers/slack.ts";

/**
 * The streamed-answer output against the Slack emulator through the real paced client: per message,
 * a stream when Slack allows it, the working message otherwise; appends buffered to the rate tier.
 */
let emulator: SlackApiEmulator;
beforeEach(async () => {
  emulator = await startSlackEmulator();
});
afterEach(() => emulator.stop());

function output(e: SlackApiEmulator, extra: { ticketLinks?: TicketLinks } = {}) {
  const scheduler = new CallScheduler();
  const common = {
    slackApiUrl: e.url,
    logger: quietSlackLogger(),
    retryConfig: { retries: 0 },
    scheduler,
    rateScale: 1,
  };
  const client = new PacedWebClient("xoxb-test", { ...common, lane: "deliver" });
  const progressClient = new PacedWebClient("xoxb-test", { ...common, lane: "progress" });
  const s = {
    client,
    slack: createWebSlackPort(client),
    redactor: createRedactor(),
    logger: silentLogger(),
    ...extra,
  };
  return { s, progressClient, streamed: createStreamedAnswers(s, { minIntervalMs: 50 }) };
}

const runId = randomUUID();
const event = (e: Partial<TraceEvent> & { event: TraceEvent["event"] }): TraceEvent => ({
  runId,
  sessionKey: "s",
  step: 1,
  ...e,
});
/** The model's step that asked for the calls, answered as a stream: the turn's answer may stream. */
const streamedCalls = event({ event: "model.response", streamed: true, toolCalls: ["search_tickets"] });
const result = (answer: string): TurnResult => ({
  status: "completed",
  runId,
  answer,
  messages: [],
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, requests: 1 },
  steps: 2,
  modelCalls: 2,
});

async function turnIn(
  channel: string,
  e: SlackApiEmulator = emulator,
  extra: { ticketLinks?: TicketLinks } = {},
) {
  const q = postAsUser(e.workspace, { user: DEMO.user, channel, text: "<@U0HERMES> tickets?" });
  const { s, progressClient, streamed } = output(e, extra);
  const working = await s.client.chat.postMessage({ channel, thread_ts: q.ts, text: "Working on it…" });
  const placeholderTs = working.ts!;
  const fallback = openWorkingMessage({
    client: progressClient,
    channel,
    threadTs: q.ts,
    ts: placeholderTs,
    logger: s.logger,
    minIntervalMs: 0,
  });
  const display = {
    show: (e: TraceEvent) => {
      if (e.event === "tool.start") fallback.show(`Running \`${e.tool}\`…`);
    },
    close: () => fallback.close(),
    discard: () => fallback.discard(),
  };
  const target = { channel, threadTs: q.ts, placeholderTs };
  const finish = async (r: TurnResult) => {
    if (!(await streamed.showResult(r, target))) await showResult(s, r, target);
  };
  return { q, s, streamed, display, target, finish };
}

/**
 * The bot's replies once the working message `workingTs` is removed: one answer, a new message posted
 * after it (never an update of it, which Slack would mark "(edited)").
 */
async function answeredAlone(channel: string, threadTs: string, workingTs: string | undefined) {
  await waitFor(
    () => emulator.workspace.getMessage(channel, workingTs!) === undefined,
    10_000,
    "working message removed",
  );
  const replies = emulator.workspace.replies(channel, threadTs)!.filter((m) => m.user === DEMO.bot);
  expect(replies).toHaveLength(1);
  expect(Number(replies[0]!.ts)).toBeGreaterThan(Number(workingTs));
  expect(replies[0]!.edited).toBeUndefined();
  return replies;
}

describe("streamed answers, chosen per message", () => {
  it("a channel turn without its requester's team: no stream, the working message shows progress, then the answer is posted and it is removed", async () => {
    const t = await turnIn(DEMO.ops);
    const progress = t.streamed.progress(
      {
        channel: DEMO.ops,
        threadTs: t.q.ts,
        recipient: { userId: DEMO.user },
        logger: t.s.logger,
      },
      t.display,
    );
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_a" }));
    await waitFor(() =>
      emulator.workspace.getMessage(DEMO.ops, t.target.placeholderTs)?.text.includes("search_tickets"),
    );
    progress.show(event({ event: "model.text", delta: "Two tickets are open " }));
    await progress.close();
    await t.finish(result("Two tickets are open."));
    expect(emulator.callsTo("chat.startStream")).toHaveLength(0);
    const replies = await answeredAlone(DEMO.ops, t.q.ts, t.target.placeholderTs);
    expect(replies[0]!.text).toBe("Two tickets are open.");
  });

  it("a streamed answer about a ticket ends carrying it as a Work Object, as the posted path does", async () => {
    const t = await turnIn(DEMO.dmUser, emulator, {
      ticketLinks: ticketLinks("https://desk.example.com/tickets"),
    });
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    progress.show(streamedCalls);
    progress.show(event({ event: "model.text", delta: "Opened ticket #7 " }));
    await waitFor(() => emulator.callsTo("chat.startStream")[0]?.response?.ok === true);
    await progress.close();
    const ticket = {
      created: "#7",
      ticket: "#7",
      title: "VPN down",
      status: "open",
      priority: "high",
      assignee: null,
      created_by: DEMO.user,
      created_at: "2026-12-07T10:00:00Z",
    };
    await t.finish({
      ...result("Opened ticket #7 for the VPN."),
      messages: [{ role: "tool", toolCallId: "c1", name: "create_ticket", content: JSON.stringify(ticket) }],
    });
    const streamTs = emulator.callsTo("chat.startStream")[0]!.response!.ts as string;
    const shown = await waitFor(() => {
      const m = emulator.workspace.getMessage(DEMO.dmUser, streamTs);
      return m?.text.includes("Opened ticket #7") ? m : undefined;
    });
    const entities = (shown.metadata as { entities?: Array<{ external_ref: { id: string }; url: string }> })
      ?.entities;
    expect(entities?.map((e) => [e.external_ref.id, e.url])).toEqual([
      ["7", "https://desk.example.com/tickets/7"],
    ]);
  });

  it("a rate-limited append waits, the text meanwhile is buffered into the next one, and nothing is lost", async () => {
    emulator.faults.rateLimit("chat.appendStream", { times: 1, retryAfterSeconds: 1 });
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_b" }));
    progress.show(event({ event: "tool.end", tool: "search_tickets", callId: "call_b", ok: true }));
    const streamTs = await waitFor(
      () => emulator.callsTo("chat.startStream")[0]?.response?.ts as string | undefined,
    );
    for (const w of words) {
      progress.show(event({ event: "model.text", delta: w }));
      await new Promise((r) => setImmediate(r));
    }
    // Everything written (up to the last whole word) reaches the message, in order, despite the 429.
    const expected = words.join("").trimEnd();
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, streamTs)?.text === expected, 15_000);
    const appends = emulator.callsTo("chat.appendStream");
    expect(appends.some((c) => c.response?.error === "ratelimited")).toBe(true);
    // Buffered: far fewer appends than pieces of text.
    expect(appends.length).toBeLessThan(words.length / 2);
    await progress.close();
    await t.finish(result(`${expected}.`));
    const final = emulator.workspace.getMessage(DEMO.dmUser, streamTs)!;
    const plan = planAnswer(`${expected}.`);
    if (plan.kind !== "messages") throw new Error("one message expected");
    expect(final.text).toBe(plan.messages[0]!.text);
    expect(final.stream).toMatchObject({ state: "stopped", tasks: [{ id: "call_b", status: "complete" }] });
    // The working message was removed once the stream was up.
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs) === undefined);
  });

  it("a workspace stricter than the published tier answers appends 429 with Retry-After: the stream waits, buffers the text, and loses none of it", async () => {
    // Slack's tier 4 is "100+" a minute, shared by every stream of the workspace (every replica of
    // Hermes too): this one tolerates a burst of 2 where Hermes' own pacing allows 10.
    const strict = await startSlackEmulator({ rateLimits: { burst: { "chat.appendStream": 2 } } });
    try {
      const t = await turnIn(DEMO.dmUser, strict);
      const progress = t.streamed.progress(
        { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
        t.display,
      );
      progress.show(streamedCalls);
      progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_l" }));
      const streamTs = await waitFor(
        () => strict.callsTo("chat.startStream")[0]?.response?.ts as string | undefined,
      );
      progress.show(event({ event: "tool.end", tool: "search_tickets", callId: "call_l", ok: true }));
      const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
      const appends = () => strict.callsTo("chat.appendStream");
      // One word an append until the emulator refuses one: the tolerated burst is used up.
      let i = 0;
      while (!appends().some((c) => c.response?.error === "ratelimited")) {
        const before = appends().length;
        progress.show(event({ event: "model.text", step: 2, delta: words[i++]! }));
        await waitFor(() => appends().length > before, 15_000, "an append");
      }
      const refused = appends().find((c) => c.response?.error === "ratelimited")!;
      expect(refused.response).toMatchObject({ ok: false, error: "ratelimited" });
      expect(strict.rateLimits!.limited.get("chat.appendStream")).toBeGreaterThanOrEqual(1);
      // The rest is written while the stream waits out Retry-After: buffered, not sent into more 429s.
      for (; i < words.length; i++) progress.show(event({ event: "model.text", step: 2, delta: words[i]! }));
      const expected = words.join("").trimEnd();
      await waitFor(() => strict.workspace.getMessage(DEMO.dmUser, streamTs)?.text === expected, 15_000);
      expect(appends().length).toBeLessThan(words.length / 2);
      expect(appends().filter((c) => c.response?.error === "ratelimited").length).toBeLessThanOrEqual(2);
      await progress.close();
      await t.finish(result(`${expected}.`));
      const plan = planAnswer(`${expected}.`);
      if (plan.kind !== "messages") throw new Error("one message expected");
      const final = strict.workspace.getMessage(DEMO.dmUser, streamTs)!;
      expect(final.text).toBe(plan.messages[0]!.text);
      expect(final.blocks).toEqual([...plan.messages[0]!.blocks, feedbackBlock(runId)]);
      expect(final.stream).toMatchObject({ state: "stopped", tasks: [{ id: "call_l", status: "complete" }] });
    } finally {
      await strict.stop();
    }
  });

  it("an answer too long for one message leaves the stream for the usual path: parts and replies as unstreamed", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_c" }));
    const streamTs = await waitFor(
      () => emulator.callsTo("chat.startStream")[0]?.response?.ts as string | undefined,
    );
    await progress.close();
    const long = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum ".repeat(100)}`).join(
      "\n\n",
    );
    await t.finish(result(long));
    const plan = planAnswer(long);
    if (plan.kind !== "messages") throw new Error("messages expected");
    expect(plan.messages.length).toBeGreaterThan(1);
    // The parts are new messages; the stopped stream they stand in for is removed.
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, streamTs) === undefined);
    const replies = emulator.workspace.replies(DEMO.dmUser, t.q.ts)!.filter((m) => m.user === DEMO.bot);
    expect(replies.map((m) => m.text)).toEqual(plan.messages.map((m) => m.text));
    expect(replies.every((m) => m.edited === undefined && m.stream === undefined)).toBe(true);
  });

  it("a rate-limited start: no stream for this message, the working message shows progress and the answer", async () => {
    emulator.faults.rateLimit("chat.startStream", { times: 1, retryAfterSeconds: 30 });
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_d" }));
    await waitFor(() =>
      emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs)?.text.includes("search_tickets"),
    );
    expect(emulator.callsTo("chat.startStream")).toHaveLength(1);
    await progress.close();
    await t.finish(result("One ticket is open."));
    const replies = await answeredAlone(DEMO.dmUser, t.q.ts, t.target.placeholderTs);
    expect(replies.map((m) => m.text)).toEqual(["One ticket is open."]);
  });

  it("a long text is appended in pieces Slack accepts (12,000 characters a call at most)", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_e" }));
    const streamTs = await waitFor(
      () => emulator.callsTo("chat.startStream")[0]?.response?.ts as string | undefined,
    );
    const long = `${"ticket ".repeat(4000)}end `;
    progress.show(event({ event: "model.text", delta: long }));
    await waitFor(
      () => emulator.workspace.getMessage(DEMO.dmUser, streamTs)?.text === long.trimEnd(),
      15_000,
    );
    expect(emulator.callsTo("chat.appendStream").every((c) => c.response?.ok)).toBe(true);
    await progress.close();
    await t.finish(result("Done."));
  });
});

describe("a stream only for a model that streams", () => {
  it("answers in one piece (command mode, a server that refused `stream`): no stream, the working message shows the calls, then the answer is posted and it is removed", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    // Command mode asks no model before its call; a refused stream answers with a plain response.
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_f" }));
    progress.show(event({ event: "tool.end", tool: "search_tickets", callId: "call_f", ok: true }));
    progress.show(event({ event: "model.response", streamed: false, toolCalls: [] }));
    await waitFor(() =>
      emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs)?.text.includes("search_tickets"),
    );
    await progress.close();
    await t.finish(result("Two tickets are open."));
    expect(emulator.callsTo("chat.startStream")).toHaveLength(0);
    const replies = await answeredAlone(DEMO.dmUser, t.q.ts, t.target.placeholderTs);
    expect(replies.map((m) => m.text)).toEqual(["Two tickets are open."]);
  });

  it("a resumed run's approved call runs before its first model call: its card waits, and the stream starts with it once the model streams", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    progress.show(event({ event: "tool.start", tool: "send_message", callId: "call_g" }));
    progress.show(event({ event: "tool.end", tool: "send_message", callId: "call_g", ok: true }));
    await waitFor(() =>
      emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs)?.text.includes("send_message"),
    );
    expect(emulator.callsTo("chat.startStream")).toHaveLength(0);
    progress.show(event({ event: "model.text", step: 2, delta: "Sent it. " }));
    const [start] = await waitFor(() => {
      const calls = emulator.callsTo("chat.startStream");
      return calls[0]?.response?.ok ? calls : undefined;
    });
    const chunks = JSON.parse(String(start!.args.chunks)) as Array<Record<string, unknown>>;
    expect(chunks).toEqual([
      { type: "task_update", id: "call_g", title: "`send_message`", status: "complete" },
      { type: "markdown_text", text: "Sent it." },
    ]);
    await progress.close();
    await t.finish(result("Sent it."));
    const streamTs = String(start!.response!.ts);
    expect(emulator.workspace.getMessage(DEMO.dmUser, streamTs)!.text).toBe("Sent it.");
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs) === undefined);
  });
});

describe("an assistant thread: the status line and the stream side by side", () => {
  async function assistantTurn() {
    const thread = assistantThreadsOf(emulator.workspace).open(DEMO.user);
    postAsUser(emulator.workspace, {
      user: DEMO.user,
      channel: thread.channel,
      threadTs: thread.threadTs,
      text: "which tickets are open?",
    });
    const { s, streamed } = output(emulator);
    const status = createAssistantStatus({
      client: s.client,
      channel: thread.channel,
      threadTs: thread.threadTs,
      logger: s.logger,
      minIntervalMs: 0,
    });
    const display = streamed.statusLine(
      {
        channel: thread.channel,
        threadTs: thread.threadTs,
        recipient: { userId: DEMO.user, teamId: emulator.workspace.team.id },
        logger: s.logger,
      },
      status,
    );
    const target = { channel: thread.channel, threadTs: thread.threadTs };
    const finish = async (r: TurnResult) => {
      if (!(await streamed.showResult(r, target))) await showResult(s, r, target);
      await display.clear();
    };
    const line = () => assistantThreadsOf(emulator.workspace).get(thread.channel, thread.threadTs)!.status;
    const replies = () =>
      emulator.workspace
        .replies(thread.channel, thread.threadTs)!
        .filter((m) => m.user === DEMO.bot && m.ts !== thread.threadTs);
    return { thread, display, finish, line, replies };
  }

  it("a streaming model: the answer streams in the thread beside the line naming the running tool, and the line is cleared at the end", async () => {
    const a = await assistantTurn();
    a.display.show(streamedCalls);
    a.display.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_h" }));
    const streamTs = await waitFor(
      () => emulator.callsTo("chat.startStream")[0]?.response?.ts as string | undefined,
    );
    const [start] = emulator.callsTo("chat.startStream");
    // In the DM's assistant thread, for its user (as Bolt's sayStream does).
    expect(start!.args).toMatchObject({
      channel: a.thread.channel,
      thread_ts: a.thread.threadTs,
      recipient_user_id: DEMO.user,
      recipient_team_id: emulator.workspace.team.id,
    });
    expect(JSON.parse(String(start!.args.chunks))).toEqual([
      { type: "task_update", id: "call_h", title: "`search_tickets`", status: "in_progress" },
    ]);
    await waitFor(() => a.line() === "is running search_tickets…");
    a.display.show(event({ event: "tool.end", tool: "search_tickets", callId: "call_h", ok: true }));
    a.display.show(event({ event: "model.text", step: 2, delta: "Two tickets are open: " }));
    await waitFor(
      () => emulator.workspace.getMessage(a.thread.channel, streamTs)?.text === "Two tickets are open:",
    );
    await a.display.close();
    await a.finish(result("Two tickets are open: **#1** and **#2**."));

    const plan = planAnswer("Two tickets are open: **#1** and **#2**.");
    if (plan.kind !== "messages") throw new Error("one message expected");
    const final = emulator.workspace.getMessage(a.thread.channel, streamTs)!;
    expect(final.text).toBe(plan.messages[0]!.text);
    expect(final.blocks).toEqual([...plan.messages[0]!.blocks, feedbackBlock(runId)]);
    expect(final.stream).toMatchObject({ state: "stopped", tasks: [{ id: "call_h", status: "complete" }] });
    expect(a.replies().map((m) => m.ts)).toEqual([streamTs]);
    expect(a.line()).toBe("");
  });

  it("the line set before the stream starts (a resumed run's approved call) is set again once the stream's message has cleared it", async () => {
    const a = await assistantTurn();
    a.display.show(event({ event: "tool.start", tool: "send_message", callId: "call_k" }));
    await waitFor(() => a.line() === "is running send_message…");
    a.display.show(event({ event: "tool.end", tool: "send_message", callId: "call_k", ok: true }));
    a.display.show(event({ event: "model.request", step: 2 }));
    await waitFor(() =>
      assistantThreadsOf(emulator.workspace)
        .get(a.thread.channel, a.thread.threadTs)!
        .loadingMessages.includes("Reading the results…"),
    );
    expect(emulator.callsTo("chat.startStream")).toHaveLength(0);
    a.display.show(event({ event: "model.text", step: 2, delta: "Sent it to Wang Lei. " }));
    const [start] = await waitFor(() => {
      const calls = emulator.callsTo("chat.startStream");
      return calls[0]?.response?.ok ? calls : undefined;
    });
    // Posting the stream's message cleared the line (Slack clears it on a reply); it is set again.
    const after = () => emulator.calls.slice(emulator.calls.indexOf(start!) + 1);
    await waitFor(() =>
      after().some(
        (c) =>
          c.method === "assistant.threads.setStatus" && c.args.status === "is thinking…" && c.response?.ok,
      ),
    );
    expect(a.line()).toBe("is thinking…");
    await a.display.close();
    await a.finish(result("Sent it to Wang Lei."));
    expect(a.replies().map((m) => m.text)).toEqual(["Sent it to Wang Lei."]);
    expect(a.line()).toBe("");
  });

  it("a model that does not stream: no stream, the line names the tool, the answer is posted the usual way", async () => {
    const a = await assistantTurn();
    a.display.show(event({ event: "model.response", streamed: false, toolCalls: ["search_tickets"] }));
    a.display.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_i" }));
    await waitFor(() => a.line() === "is running search_tickets…");
    a.display.show(event({ event: "tool.end", tool: "search_tickets", callId: "call_i", ok: true }));
    await a.display.close();
    await a.finish(result("One ticket is open."));
    expect(emulator.callsTo("chat.startStream")).toHaveLength(0);
    expect(a.replies().map((m) => m.text)).toEqual(["One ticket is open."]);
    expect(a.line()).toBe("");
  });

  it("a workspace without the streaming methods: the answer is posted the usual way, once", async () => {
    emulator.faults.withoutMethods("chat.startStream", "chat.appendStream", "chat.stopStream");
    const a = await assistantTurn();
    a.display.show(streamedCalls);
    a.display.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_j" }));
    await waitFor(() => emulator.callsTo("chat.startStream")[0]?.response?.error === "unknown_method");
    a.display.show(event({ event: "model.text", step: 2, delta: "One ticket is open " }));
    await a.display.close();
    await a.finish(result("One ticket is open."));
    expect(a.replies().map((m) => [m.text, m.stream])).toEqual([["One ticket is open.", undefined]]);
    expect(a.line()).toBe("");
  });
});

describe("a stream Slack ends (message_not_in_streaming_state, after about five minutes)", () => {
  /** Ends a streamed message as Slack does: it keeps what it shows and takes no more appends. */
  const endStream = (channel: string, ts: string) => {
    const stream = emulator.workspace.getMessage(channel, ts)?.stream;
    if (!stream) throw new Error(`no stream at ${ts}`);
    emulator.workspace.updateMessage(channel, ts, { stream: { ...stream, state: "stopped" } });
  };
  const startedTs = (n: number) => () => {
    const ok = emulator.callsTo("chat.startStream").filter((c) => c.response?.ok);
    const ts = ok[n - 1]?.response?.ts;
    return typeof ts === "string" ? ts : undefined;
  };
  const words = (text: string) => text.split(/\s+/).filter(Boolean).join(" ");

  it("the text and cards refused go into a new message, at once and at the stop; the last one takes the rest of the answer and the buttons", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    const full =
      "Three tickets are open: the VPN in Berlin, the mail relay and the printer on the third floor.";
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_r" }));
    const first = await waitFor(startedTs(1));
    progress.show(event({ event: "tool.end", tool: "search_tickets", callId: "call_r", ok: true }));
    progress.show(event({ event: "model.text", step: 2, delta: "Three tickets are open: " }));
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, first)?.text.includes("open:"));
    endStream(DEMO.dmUser, first);
    progress.show(event({ event: "model.text", step: 2, delta: "the VPN in Berlin, " }));
    const second = await waitFor(startedTs(2), 15_000, "a second streamed message");
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, second)?.text.includes("Berlin"));
    endStream(DEMO.dmUser, second);
    // A card of the next step, then the end: refused by the ended message, it starts a third one.
    progress.show(event({ event: "tool.start", tool: "check_printer", callId: "call_s" }));
    await progress.close();
    await t.finish(result(full));
    const third = await waitFor(startedTs(3), 15_000, "a third streamed message");

    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs) === undefined);
    const replies = emulator.workspace.replies(DEMO.dmUser, t.q.ts)!.filter((m) => m.user === DEMO.bot);
    expect(replies.map((m) => m.ts)).toEqual([first, second, third]);
    const [one, two, last] = replies;
    // The earlier messages keep what they showed; the last is the rest, as the usual path shows it.
    expect(one!.text.trim()).toBe("Three tickets are open:");
    expect(one!.stream).toMatchObject({ tasks: [{ id: "call_r", status: "complete" }] });
    const shownBefore = one!.text + two!.text;
    expect(full.startsWith(shownBefore)).toBe(true);
    const plan = planAnswer(full.slice(shownBefore.length));
    if (plan.kind !== "messages") throw new Error("one message expected");
    expect(last!.text).toBe(plan.messages[0]!.text);
    expect(last!.blocks).toEqual([...plan.messages[0]!.blocks, feedbackBlock(runId)]);
    expect(last!.stream).toMatchObject({
      state: "stopped",
      tasks: [{ id: "call_s", status: "in_progress" }],
    });
    expect(words(replies.map((m) => m.text).join(" "))).toBe(words(full));
    expect(replies.filter((m) => JSON.stringify(m.blocks ?? []).includes("hermes.feedback."))).toHaveLength(
      1,
    );
  });

  it("a new message that cannot start: the stream stops growing and the ended message becomes the whole answer", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, logger: t.s.logger },
      t.display,
    );
    const full = "Two tickets are open: the VPN in Berlin and the mail relay.";
    progress.show(streamedCalls);
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_u" }));
    const first = await waitFor(startedTs(1));
    progress.show(event({ event: "model.text", step: 2, delta: "Two tickets are open: " }));
    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, first)?.text.includes("open:"));
    endStream(DEMO.dmUser, first);
    emulator.faults.fail("chat.startStream", "internal_error");
    progress.show(event({ event: "model.text", step: 2, delta: "the VPN in Berlin " }));
    await waitFor(() =>
      emulator.callsTo("chat.startStream").some((c) => c.response?.error === "internal_error"),
    );
    await progress.close();
    await t.finish(result(full));

    await waitFor(() => emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs) === undefined);
    const replies = emulator.workspace.replies(DEMO.dmUser, t.q.ts)!.filter((m) => m.user === DEMO.bot);
    expect(replies.map((m) => m.ts)).toEqual([first]);
    const plan = planAnswer(full);
    if (plan.kind !== "messages") throw new Error("one message expected");
    const final = emulator.workspace.getMessage(DEMO.dmUser, first)!;
    expect(final.text).toBe(plan.messages[0]!.text);
    expect(final.blocks).toEqual([...plan.messages[0]!.blocks, feedbackBlock(runId)]);
  });
});
