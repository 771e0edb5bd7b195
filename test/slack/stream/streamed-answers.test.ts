import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TurnResult } from "../../../src/agent/runtime-types.ts";
import type { TraceEvent } from "../../../src/agent/trace.ts";
import { silentLogger } from "../../../src/logger.ts";
import { createRedactor } from "../../../src/policy/redact.ts";
import { postAsUser } from "../../../src/sandbox/post-as-user.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { planAnswer } from "../../../src/slack/answer-blocks.ts";
import { showResult } from "../../../src/slack/deliver-result.ts";
import { createProgressMessage } from "../../../src/slack/progress-message.ts";
import { CallScheduler } from "../../../src/slack/rate-limit/call-scheduler.ts";
import { PacedWebClient } from "../../../src/slack/rate-limit/paced-web-client.ts";
import { createStreamedAnswers } from "../../../src/slack/stream/streamed-answers.ts";
import { createWebSlackPort } from "../../../src/slack/web-slack-port.ts";
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

function output(e: SlackApiEmulator) {
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
  const s = { client, slack: createWebSlackPort(client), redactor: createRedactor(), logger: silentLogger() };
  return { s, progressClient, streamed: createStreamedAnswers(s, { minIntervalMs: 50 }) };
}

const runId = randomUUID();
const event = (e: Partial<TraceEvent> & { event: TraceEvent["event"] }): TraceEvent => ({
  runId,
  sessionKey: "s",
  step: 1,
  ...e,
});
const result = (answer: string): TurnResult => ({
  status: "completed",
  runId,
  answer,
  messages: [],
  usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, requests: 1 },
  steps: 2,
  modelCalls: 2,
});

async function turnIn(channel: string) {
  const q = postAsUser(emulator.workspace, { user: DEMO.user, channel, text: "<@U0HERMES> tickets?" });
  const { s, progressClient, streamed } = output(emulator);
  const working = await s.client.chat.postMessage({ channel, thread_ts: q.ts, text: "Working on it…" });
  const placeholderTs = working.ts!;
  const fallback = createProgressMessage({
    client: progressClient,
    channel,
    ts: placeholderTs,
    logger: s.logger,
    minIntervalMs: 0,
  });
  const display = {
    show: (e: TraceEvent) => {
      if (e.event === "tool.start") fallback.update(`Running \`${e.tool}\`…`);
    },
    close: () => fallback.close(),
  };
  const target = { channel, threadTs: q.ts, placeholderTs };
  const finish = async (r: TurnResult) => {
    if (!(await streamed.showResult(r, target))) await showResult(s, r, target);
  };
  return { q, s, streamed, display, target, finish };
}

describe("streamed answers, chosen per message", () => {
  it("a channel turn without its requester's team: no stream, the working message shows progress and becomes the answer", async () => {
    const t = await turnIn(DEMO.ops);
    const progress = t.streamed.progress(
      {
        channel: DEMO.ops,
        threadTs: t.q.ts,
        recipient: { userId: DEMO.user },
        placeholderTs: t.target.placeholderTs,
        logger: t.s.logger,
      },
      t.display,
    );
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_a" }));
    await waitFor(() =>
      emulator.workspace.getMessage(DEMO.ops, t.target.placeholderTs)?.text.includes("search_tickets"),
    );
    progress.show(event({ event: "model.text", delta: "Two tickets are open " }));
    await progress.close();
    await t.finish(result("Two tickets are open."));
    expect(emulator.callsTo("chat.startStream")).toHaveLength(0);
    const replies = emulator.workspace.replies(DEMO.ops, t.q.ts)!.filter((m) => m.user === DEMO.bot);
    expect(replies.map((m) => m.ts)).toEqual([t.target.placeholderTs]);
    expect(replies[0]!.text).toBe("Two tickets are open.");
  });

  it("a rate-limited append waits, the text meanwhile is buffered into the next one, and nothing is lost", async () => {
    emulator.faults.rateLimit("chat.appendStream", { times: 1, retryAfterSeconds: 1 });
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, placeholderTs: t.target.placeholderTs, logger: t.s.logger },
      t.display,
    );
    const words = Array.from({ length: 40 }, (_, i) => `word${i} `);
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

  it("an answer too long for one message leaves the stream for the usual path: parts and replies as unstreamed", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, placeholderTs: t.target.placeholderTs, logger: t.s.logger },
      t.display,
    );
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
    const replies = emulator.workspace.replies(DEMO.dmUser, t.q.ts)!.filter((m) => m.user === DEMO.bot);
    expect(replies.map((m) => m.text)).toEqual(plan.messages.map((m) => m.text));
    expect(replies[0]!.ts).toBe(streamTs);
  });

  it("a rate-limited start: no stream for this message, the working message shows progress and the answer", async () => {
    emulator.faults.rateLimit("chat.startStream", { times: 1, retryAfterSeconds: 30 });
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, placeholderTs: t.target.placeholderTs, logger: t.s.logger },
      t.display,
    );
    progress.show(event({ event: "tool.start", tool: "search_tickets", callId: "call_d" }));
    await waitFor(() =>
      emulator.workspace.getMessage(DEMO.dmUser, t.target.placeholderTs)?.text.includes("search_tickets"),
    );
    expect(emulator.callsTo("chat.startStream")).toHaveLength(1);
    await progress.close();
    await t.finish(result("One ticket is open."));
    const replies = emulator.workspace.replies(DEMO.dmUser, t.q.ts)!.filter((m) => m.user === DEMO.bot);
    expect(replies.map((m) => [m.ts, m.text])).toEqual([[t.target.placeholderTs, "One ticket is open."]]);
  });

  it("a long text is appended in pieces Slack accepts (12,000 characters a call at most)", async () => {
    const t = await turnIn(DEMO.dmUser);
    const progress = t.streamed.progress(
      { channel: DEMO.dmUser, threadTs: t.q.ts, placeholderTs: t.target.placeholderTs, logger: t.s.logger },
      t.display,
    );
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
