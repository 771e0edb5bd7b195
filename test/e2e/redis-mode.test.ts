import type { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { sql } from "../../src/store/drizzle.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { connectTestRedis, deleteKeysWithPrefix } from "../helpers/redis.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  type ScriptStep,
  toolCalls,
} from "../helpers/scripted-model.ts";
import { settledReplies } from "../helpers/slack-thread.ts";

type Block = { type: string; elements?: Array<{ value?: string }>; text?: { text: string } };

const CHANNEL = "C0OPS";
const botReplies = (t: TestHermes, ts: string, channel = CHANNEL) =>
  (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const replyWith = (t: TestHermes, ts: string, text: string) => () =>
  botReplies(t, ts).find((m) => m.text === text);
const cardOf = (t: TestHermes, ts: string) =>
  botReplies(t, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
const approvalIdOf = (card: SandboxMessage) =>
  (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
const lastUserText = (r: RecordedRequest) =>
  r.body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
const delayed = (step: ScriptStep, delayMs: number): ScriptStep => ({
  ...(step as { completion: Record<string, unknown> }),
  delayMs,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Keys under `prefix` (SCAN, never KEYS on a shared server). */
async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
    cursor = next;
    out.push(...keys);
  } while (cursor !== "0");
  return out;
}

describe("production mode: Postgres + Redis sessions/locks + BullMQ, over real HTTP", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let redis: Redis;
  let team: string;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis: true });
    redis = connectTestRedis();
    team = t.hermes.services.slack.bot.teamId;
  }, 180_000);
  afterAll(async () => {
    redis?.disconnect();
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  const sessionKeyOf = (ts: string) => `${team}:${CHANNEL}:${ts}`;
  const eventStatus = async (eventId: string) =>
    (
      await t.hermes.services.storage.db.db.execute<{ status: string }>(
        sql`select status from slack_events where event_id = ${eventId}`,
      )
    ).rows.map((r) => r.status);
  /** Scripts the model's answer, mentions Hermes (in `threadTs`, else a new thread) and waits for it. */
  const ask = async (text: string, reply: string, threadTs?: string) => {
    model.enqueue(answer(reply));
    const sent = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: `<@U0HERMES> ${text}`,
      ...(threadTs ? { threadTs } : {}),
    });
    const ts = threadTs ?? sent.message!.ts;
    await waitFor(replyWith(t, ts, reply), 30_000, `the answer "${reply}"`);
    return { eventId: sent.eventId, ts };
  };

  it("Redis loses a session mid-thread: the next message is still answered, from an empty history", async () => {
    const first = await ask("remember the code word heron", "Noted: the code word is heron.");
    const { ts } = first;

    // The session lives under the deployment's prefix (HERMES_REDIS_PREFIX), as README promises.
    const key = sessionKeyOf(ts);
    const sessionRedisKey = `${t.redisPrefix}:session:${key}`;
    expect(await redis.get(sessionRedisKey)).toContain("heron");
    // Redis loses everything of this session: history and any lock keys.
    const ofSession = (await keysUnder(redis, `${t.redisPrefix}:`)).filter((k) => k.includes(key));
    expect(ofSession).toContain(sessionRedisKey);
    await redis.del(...ofSession);
    expect(await redis.exists(sessionRedisKey)).toBe(0);

    const second = await ask("what was the code word?", "I have no record of a code word.", ts);

    expect(model.requests).toHaveLength(2);
    const request = model.requests[1]!.body.messages;
    // No history came from Redis: only the system prompt and this turn's user message…
    expect(request.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request.some((m) => m.role === "assistant")).toBe(false);
    // …and since this is a mention inside an existing thread, the thread was quoted from Slack as
    // untrusted data instead (that is where the earlier exchange is now).
    const user = request[1]!.content ?? "";
    expect(user).toContain('<untrusted source="slack-thread">');
    expect(user).toContain("remember the code word heron");
    expect(user.trim().endsWith("what was the code word?")).toBe(true);
    // Nothing failed: no warning in the thread, both events finished, and the session exists again.
    expect(botReplies(t, ts).filter((m) => m.text.includes(":warning:"))).toEqual([]);
    expect((await settledReplies(t, CHANNEL, ts)).map((m) => m.text)).toEqual([
      "Noted: the code word is heron.",
      "I have no record of a code word.",
    ]);
    await waitFor(async () => (await eventStatus(second.eventId!))[0] === "done", 30_000, "event done");
    expect(await eventStatus(first.eventId!)).toEqual(["done"]);
    expect(await redis.get(sessionRedisKey)).toContain("no record of a code word");
  });

  it("a stored history that is not chat messages is not used: the next message is answered from the thread instead", async () => {
    const { ts } = await ask("remember the code word egret", "Noted: the code word is egret.");
    // Written by some other version, or damaged: the right JSON, the wrong shape.
    const sessionRedisKey = `${t.redisPrefix}:session:${sessionKeyOf(ts)}`;
    await redis.set(sessionRedisKey, JSON.stringify([{ role: "assistant", content: null, tool_calls: [] }]));

    const second = await ask("what was the code word?", "The thread says egret.", ts);
    const request = model.requests[1]!.body.messages;
    expect(request.map((m) => m.role)).toEqual(["system", "user"]);
    expect(request[1]!.content ?? "").toContain("remember the code word egret");
    expect(botReplies(t, ts).filter((m) => m.text.includes(":warning:"))).toEqual([]);
    await waitFor(async () => (await eventStatus(second.eventId!))[0] === "done", 30_000, "event done");
    expect(await redis.get(sessionRedisKey)).toContain("The thread says egret.");
  });

  it("Redis flushed while a run waits for approval: Approve still decides in Postgres and the run resumes once", async () => {
    const sentToWangLei = () => t.ws.history("D0WANGLEI").filter((m) => m.text.includes("flush-proof"));
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "flush-proof hello" } }]),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> tell Wang Lei hello",
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardOf(t, ts), 30_000, "approval card");
    const approvalId = approvalIdOf(card);

    // Everything this Hermes has in Redis: sessions, locks and BullMQ's keys.
    const before = await keysUnder(redis, t.redisPrefix);
    expect(before.some((k) => k.startsWith(`${t.redisPrefix}:session:`))).toBe(true);
    expect(before.some((k) => k.startsWith(`${t.redisPrefix}:turns:`))).toBe(true);
    await deleteKeysWithPrefix(redis, t.redisPrefix);
    expect(await keysUnder(redis, t.redisPrefix)).toEqual([]);

    model.enqueue(answer("Told Wang Lei hello."));
    const click = await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalId,
      channel: CHANNEL,
      messageTs: card.ts,
    });
    expect(click.status).toBe(200);
    await waitFor(replyWith(t, ts, "Told Wang Lei hello."), 30_000, "answer after approval");
    await sleep(200);

    expect(sentToWangLei()).toHaveLength(1);
    // The model was asked once more (for the answer), with the approved call's result: the run went
    // on from its Postgres snapshot, it was not re-planned.
    expect(model.requests).toHaveLength(2);
    const resumed = model.requests[1]!.body.messages;
    const call = resumed.find((m) => m.role === "assistant" && m.tool_calls?.length)!;
    const callId = call.tool_calls![0]!.id;
    expect(resumed.filter((m) => m.role === "tool" && m.tool_call_id === callId)).toHaveLength(1);
    const rows = (
      await t.hermes.services.storage.audit.query({ tool: "send_message", limit: 50 })
    ).rows.filter((r) => r.toolCallId === callId);
    const count = (action: string) => rows.filter((r) => r.action === action).length;
    expect(count("tool.requested")).toBe(1);
    expect(count("tool.approval_requested")).toBe(1);
    expect(count("tool.approved")).toBe(1);
    expect(count("tool.executed")).toBe(1);
    expect(count("tool.failed")).toBe(0);
    const updated = t.ws.getMessage(CHANNEL, card.ts)!;
    expect(((updated.blocks ?? []) as Block[]).some((b) => b.type === "actions")).toBe(false);
    expect(JSON.stringify(updated.blocks)).toContain("Approved by <@U0USER1>");
    expect((await t.hermes.services.storage.runs.get(rows[0]!.runId!))?.status).toBe("completed");
  });

  it("one turn per thread: two mentions in one thread run one after the other, the later seeing the earlier in its history", async () => {
    // Both listeners run at once after their acks, so which turn is queued first is not fixed (each
    // posts its working message before queueing); what is fixed is that they never overlap.
    model.fallback = (req) =>
      delayed(answer(lastUserText(req).endsWith("first question") ? "First answer." : "Second answer."), 800);
    const d1 = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> first question",
    });
    const ts = d1.message!.ts;
    const d2 = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> second question",
      threadTs: ts,
    });
    expect([d1.status, d2.status]).toEqual([200, 200]);
    await waitFor(replyWith(t, ts, "Second answer."), 30_000, "second answer");
    await waitFor(replyWith(t, ts, "First answer."), 30_000, "first answer");

    expect(model.requests).toHaveLength(2);
    const [early, late] = model.requests as [RecordedRequest, RecordedRequest];
    const question = (r: RecordedRequest) =>
      lastUserText(r).endsWith("first question") ? "first" : "second";
    expect(new Set([question(early), question(late)])).toEqual(new Set(["first", "second"]));
    // The later turn's model request started only after the earlier one's (delayed) answer came back.
    expect(late.at - early.at).toBeGreaterThanOrEqual(800);
    // Its history holds the earlier turn: its question, then its answer, before the later question.
    const earlyAnswer = question(early) === "first" ? "First answer." : "Second answer.";
    const history = late.body.messages.map((m) => `${m.role}:${m.content ?? ""}`);
    const asked = history.findIndex(
      (m) => m.startsWith("user:") && m.includes(`${question(early)} question`),
    );
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(history.indexOf(`assistant:${earlyAnswer}`)).toBeGreaterThan(asked);
    expect(history.indexOf(`assistant:${earlyAnswer}`)).toBeLessThan(history.length - 1);
    // Both were acknowledged at once (two working messages before any answer); answers in turn order.
    const callAt = (pred: (text: string) => boolean) =>
      t.emulator.calls
        .filter((c) => pred(String((c.args as { text?: unknown }).text ?? "")))
        .map((c) => c.at.getTime());
    const working = callAt((x) => x.includes("Working on it"));
    const earlyAt = callAt((x) => x === earlyAnswer)[0]!;
    const lateAt = callAt(
      (x) => x === (earlyAnswer === "First answer." ? "Second answer." : "First answer."),
    )[0]!;
    expect(working).toHaveLength(2);
    expect(Math.max(...working)).toBeLessThan(earlyAt);
    expect(earlyAt).toBeLessThan(lateAt);
  });

  it("two different threads run at the same time", async () => {
    model.fallback = (req) =>
      delayed(answer(lastUserText(req).includes("alpha") ? "Alpha done." : "Beta done."), 700);
    const [a, b] = await Promise.all([
      t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> alpha" }),
      t.sender.appMention({ user: "U0WANGLEI", channel: CHANNEL, text: "<@U0HERMES> beta" }),
    ]);
    await waitFor(replyWith(t, a.message!.ts, "Alpha done."), 30_000, "alpha answer");
    await waitFor(replyWith(t, b.message!.ts, "Beta done."), 30_000, "beta answer");

    expect(model.requests).toHaveLength(2);
    const [r1, r2] = model.requests as [RecordedRequest, RecordedRequest];
    expect([lastUserText(r1), lastUserText(r2)].sort()).toEqual(["alpha", "beta"]);
    // Overlap: the second request arrived while the first was still being answered (700 ms), i.e.
    // neither thread waited for the other's lock or for a single worker slot.
    expect(Math.abs(r2.at - r1.at)).toBeLessThan(700);
  });

  it("a redelivered event while its turn runs → exactly one turn (BullMQ)", async () => {
    model.enqueue(delayed(answer("Only once."), 500));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> once please",
    });
    await waitFor(() => model.requests.length === 1, 30_000, "the turn is running");
    const again = await Promise.all([
      t.sender.redeliver(d, { retryNum: 1, retryReason: "http_timeout" }),
      t.sender.redeliver(d, { retryNum: 2, retryReason: "http_timeout" }),
    ]);
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    await waitFor(replyWith(t, d.message!.ts, "Only once."), 30_000, "answer");
    await sleep(400);

    expect(model.requests).toHaveLength(1);
    expect((await settledReplies(t, CHANNEL, d.message!.ts)).map((m) => m.text)).toEqual(["Only once."]);
    // One working message and one answer posted below it (the working message is then removed).
    const posts = t.emulator
      .callsTo("chat.postMessage")
      .filter((c) => c.args.thread_ts === d.message!.ts)
      .map((c) => String(c.args.text));
    expect(posts.filter((x) => x.includes("Working on it"))).toHaveLength(1);
    expect(posts.filter((x) => !x.includes("Working on it"))).toEqual(["Only once."]);
    expect(await eventStatus(d.eventId!)).toEqual(["done"]);
    expect((await t.hermes.services.queue.counts()).failed).toBe(0);
  });
});
