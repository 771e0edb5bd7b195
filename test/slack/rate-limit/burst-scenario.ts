import type { RecordedCall } from "../../../src/sandbox/slack-api-server.ts";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { startTestHermes, waitFor } from "../../helpers/hermes-harness.ts";
import {
  answer,
  type RecordedRequest,
  ScriptedModelServer,
  toolCalls,
} from "../../helpers/scripted-model.ts";

const BUSY = "C0OPS";
const QUIET = "C0GENERAL";
const MODEL_DELAY_MS = 50;
const WORKING = ":hourglass_flowing_sand:";

export interface BurstOptions {
  /** Threads started at once in the busy channel. */
  threads: number;
  /** Threads started in another channel right after the burst. */
  quietThreads: number;
  /** Slack's published rates times this, for the emulator and for Hermes' pacing alike. */
  scale: number;
  /**
   * Slack pushing back beyond its published rates as the burst starts: the busy channel's next posts,
   * and the workspace's next updates, answer 429 with this Retry-After.
   */
  pushback?: { busyPosts: number; updates: number; retryAfterSeconds: number };
}

export interface BurstReport {
  threads: number;
  scale: number;
  /** From the first event sent to the last answer shown. */
  totalMs: number;
  /** Event sent → its answer shown, busy channel. */
  answerMs: { p50: number; p99: number; max: number };
  /** Threads whose replies are not exactly their one answer (after the working messages cleared). */
  wrongAnswers: string[];
  /** Working messages still shown once every answer is there and the tidy-up had its time. */
  workingLeft: number;
  /** When the last quiet-channel answer was shown: ms since the start, and busy threads answered by then. */
  quiet: { doneMs: number; busyAnsweredThen: number; limitedCalls: number };
  /** 429 answers: in all, and the most any one call got. */
  limited: { total: number; maxPerCall: number; worstCall?: string; byMethod: Record<string, number> };
  /** Progress updates (chat.update of a working message with progress text): sent, and shown. */
  progress: { attempted: number; shown: number };
  /** Answers that updated their working message in place (none: answers are new replies), and answers posted. */
  answers: { replaced: number; posted: number };
  callsByMethod: Record<string, number>;
}

/**
 * `threads` people mention Hermes at once in one channel (and `quietThreads` in another right after)
 * against the Slack emulator enforcing Slack's published rates × `scale`, with Hermes pacing itself
 * to the same scale. Each turn: one tool call (progress updates), then the answer (scripted model,
 * 50 ms per call). Returns what was measured and what was wrong; the caller asserts.
 */
export async function runSlackBurst(o: BurstOptions): Promise<BurstReport> {
  const model = new ScriptedModelServer();
  model.record = false;
  model.fallback = (req: RecordedRequest) => {
    const messages = req.body.messages;
    const user = String(messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
    const name = /(busy|quiet) thread \d+/.exec(user)?.[0] ?? "unknown thread";
    const step = messages.some((m) => m.role === "tool")
      ? answer(`Answer for ${name}.`)
      : toolCalls([{ name: "get_current_time", args: {} }]);
    return { ...(step as object), delayMs: MODEL_DELAY_MS } as never;
  };
  await model.start();
  const t = await startTestHermes({
    model,
    env: { HERMES_SLACK_RATE_SCALE: String(o.scale), HERMES_TURN_TIMEOUT_SECONDS: "600" },
    emulator: { rateLimits: { scale: o.scale } },
  }).catch(async (err: unknown) => {
    await model.stop();
    throw err;
  });
  try {
    if (o.pushback) {
      const { busyPosts, updates, retryAfterSeconds } = o.pushback;
      t.emulator.faults.rateLimit("chat.postMessage", { times: busyPosts, retryAfterSeconds, channel: BUSY });
      t.emulator.faults.rateLimit("chat.update", { times: updates, retryAfterSeconds });
    }
    const started = Date.now();
    const mention = (channel: string, name: string) =>
      t.sender.appMention({ user: "U0USER1", channel, text: `<@U0HERMES> ${name}` }).then((d) => {
        if (d.status !== 200) throw new Error(`${name}: delivery answered HTTP ${d.status}`);
        return { name, channel, ts: d.message!.ts, sentAt: Date.now() };
      });
    const busySent = Array.from({ length: o.threads }, (_, i) => mention(BUSY, `busy thread ${i}`));
    const quietSent = Array.from({ length: o.quietThreads }, (_, i) => mention(QUIET, `quiet thread ${i}`));
    const busy = await Promise.all(busySent);
    const quiet = await Promise.all(quietSent);
    const replies = (channel: string, ts: string): SandboxMessage[] =>
      (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
    const answered = (th: { channel: string; ts: string; name: string }) =>
      replies(th.channel, th.ts).some((m) => m.text === `Answer for ${th.name}.`);

    let quietDone: { at: number; busyAnswered: number } | undefined;
    // Bounds a hang only: at the published rates a 200-thread burst takes minutes.
    await waitFor(
      () => {
        if (!quietDone && quiet.every(answered))
          quietDone = { at: Date.now(), busyAnswered: busy.filter(answered).length };
        return busy.every(answered) && quietDone;
      },
      ((o.threads * 3) / o.scale) * 1000 + 120_000,
      `answers in all ${o.threads + o.quietThreads} threads`,
    );
    const totalMs = Date.now() - started;
    const all = [...busy, ...quiet];
    // Working messages are removed at chat.delete's own pace once their answer is up.
    await waitFor(
      () => all.every((th) => !replies(th.channel, th.ts).some((m) => m.text.startsWith(WORKING))),
      ((o.threads * 2) / o.scale) * 1000 + 60_000,
      "working messages removed",
    ).catch(() => undefined);

    const calls = t.emulator.calls;
    const ok = (c: RecordedCall) => c.response?.ok === true;
    const isLimited = (c: RecordedCall) => c.response?.error === "ratelimited";
    const answerAt = new Map<string, number>();
    for (const c of calls) {
      const m = ok(c) && /^Answer for ((busy|quiet) thread \d+)\.$/.exec(String(c.args.text ?? ""));
      if (m && !answerAt.has(m[1]!)) answerAt.set(m[1]!, c.at.getTime());
    }
    const latencies = busy.map((th) => (answerAt.get(th.name) ?? Number.NaN) - started).sort((a, b) => a - b);
    const pct = (p: number) =>
      Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!);

    const perCall = new Map<string, number>();
    const byMethod: Record<string, number> = {};
    const callsByMethod: Record<string, number> = {};
    for (const c of calls) {
      callsByMethod[c.method] = (callsByMethod[c.method] ?? 0) + 1;
      if (!isLimited(c)) continue;
      byMethod[c.method] = (byMethod[c.method] ?? 0) + 1;
      const id = JSON.stringify([c.method, c.args.channel, c.args.thread_ts, c.args.ts, c.args.text]);
      perCall.set(id, (perCall.get(id) ?? 0) + 1);
    }
    const updates = calls.filter((c) => c.method === "chat.update");
    const progressCalls = updates.filter((c) => String(c.args.text ?? "").startsWith(WORKING));
    const answerUpdates = updates.filter((c) => ok(c) && String(c.args.text ?? "").startsWith("Answer for"));
    const wrongAnswers = all
      .filter((th) => {
        const r = replies(th.channel, th.ts).filter((m) => !m.text.startsWith(WORKING));
        return r.length !== 1 || r[0]!.text !== `Answer for ${th.name}.`;
      })
      .map((th) => `${th.name}: ${JSON.stringify(replies(th.channel, th.ts).map((m) => m.text))}`);
    return {
      threads: o.threads,
      scale: o.scale,
      totalMs,
      answerMs: { p50: pct(0.5), p99: pct(0.99), max: Math.round(latencies.at(-1)!) },
      wrongAnswers,
      workingLeft: all.filter((th) => replies(th.channel, th.ts).some((m) => m.text.startsWith(WORKING)))
        .length,
      quiet: {
        doneMs: quietDone!.at - started,
        busyAnsweredThen: quietDone!.busyAnswered,
        limitedCalls: calls.filter(
          (c) => isLimited(c) && c.args.channel === QUIET && c.method === "chat.postMessage",
        ).length,
      },
      limited: {
        total: [...perCall.values()].reduce((a, n) => a + n, 0),
        maxPerCall: Math.max(0, ...perCall.values()),
        worstCall: [...perCall.entries()].sort((a, b) => b[1] - a[1])[0]?.[0],
        byMethod,
      },
      progress: { attempted: progressCalls.length, shown: progressCalls.filter(ok).length },
      answers: { replaced: answerUpdates.length, posted: all.length - answerUpdates.length },
      callsByMethod,
    };
  } finally {
    await t.stop();
    await model.stop();
  }
}

/** One line for the test output and the benchmark. */
export function describeBurst(r: BurstReport): string {
  return (
    `slack burst: ${r.threads} threads in one channel at ${r.scale}× Slack's published rates: all answered ` +
    `in ${(r.totalMs / 1000).toFixed(1)} s (answer p50 ${(r.answerMs.p50 / 1000).toFixed(1)} s, ` +
    `p99 ${(r.answerMs.p99 / 1000).toFixed(1)} s); ${r.answers.replaced} answers replaced their working ` +
    `message, ${r.answers.posted} posted as replies; progress updates ${r.progress.shown}/${r.progress.attempted} ` +
    `shown; 429s ${r.limited.total} (at most ${r.limited.maxPerCall} for one call) ${JSON.stringify(r.limited.byMethod)}; ` +
    `quiet channel answered at ${(r.quiet.doneMs / 1000).toFixed(1)} s with ${r.quiet.busyAnsweredThen} busy threads answered; ` +
    `working messages left ${r.workingLeft}; calls ${JSON.stringify(r.callsByMethod)}`
  );
}
