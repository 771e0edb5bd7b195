/**
 * Memory and start-up: a process's resident memory once idle, with many idle sessions and paused runs
 * behind it (they live in Redis and Postgres, not in the process), the time from spawning Hermes to
 * `/healthz` answering (Postgres, and the embedded default on PGlite), and a long thread: per-turn
 * cost and prompt size as its history grows past the context budget.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { countTokens } from "../src/agent/context/token-count.ts";
import { loadConfig } from "../src/config.ts";
import type { RecordedRequest } from "../test/helpers/scripted-model.ts";
import type { BenchStack, SentTurn, TurnKind } from "./lib/bench-stack.ts";
import { cleanUpOnInterrupt, within } from "./lib/bench-stack.ts";
import { type HermesProcess, startHermesProcess } from "./lib/hermes-processes.ts";
import { tempDir } from "./lib/temp-dir.ts";

/** RSS (MB) once it has settled: the median of samples over `ms`, after a short pause. */
export async function settledRssMb(p: HermesProcess, ms = 2000): Promise<number> {
  await sleep(500);
  const samples: number[] = [];
  for (const end = performance.now() + ms; performance.now() < end; await sleep(200)) samples.push(p.rssMb());
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

/** Runs `count` turns of `kind`, each in a new thread, at most `inFlight` at a time. */
async function runMany(stack: BenchStack, p: HermesProcess, kind: TurnKind, count: number, inFlight: number) {
  const driver = stack.driver(p);
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) {
        next++;
        const sent = await driver.send(kind);
        await within(120_000, `${kind} turn ${sent.token}`, sent.done);
      }
    }),
  );
}

export interface IdleSessionsResult {
  sessions: number;
  pausedRuns: number;
  rssBeforeMb: number;
  rssAfterMb: number;
}

/** `sessions` finished threads (one turn each) and `paused` runs waiting for approval, then RSS. */
export async function measureIdleSessions(
  stack: BenchStack,
  p: HermesProcess,
  o: { sessions: number; paused: number },
): Promise<IdleSessionsResult> {
  stack.state.modelDelayMs = 0;
  const rssBeforeMb = await settledRssMb(p);
  await runMany(stack, p, "plain", o.sessions, 16);
  await runMany(stack, p, "approve", o.paused, 16);
  return { sessions: o.sessions, pausedRuns: o.paused, rssBeforeMb, rssAfterMb: await settledRssMb(p, 3000) };
}

export interface LongThreadResult {
  turns: number;
  budgetTokens: number;
  /** Largest prompt sent in the thread (messages + tool schemas), tokens. */
  maxPromptTokens: number;
  /** Per window of turns: e2e ms (p50) and CPU ms per turn of the Hermes process. */
  windows: Array<{ from: number; to: number; e2eP50Ms: number; cpuMsPerTurn: number; promptTokens: number }>;
  summaries: number;
}

/** `turns` turns one after another in one thread, each adding ~150 tokens of user text. */
export async function measureLongThread(
  stack: BenchStack,
  p: HermesProcess,
  o: { turns: number; windowSize: number },
): Promise<LongThreadResult> {
  const driver = stack.driver(p);
  stack.state.modelDelayMs = 0;
  const padding = "Context for this request: the VPN gateway in the Berlin office drops sessions. ".repeat(8);
  let promptTokens = 0;
  let maxPromptTokens = 0;
  let summaries = 0;
  stack.state.onRequest = (req: RecordedRequest) => {
    if (!req.body.tools?.length) {
      summaries++;
      return;
    }
    promptTokens = requestTokens(req);
    maxPromptTokens = Math.max(maxPromptTokens, promptTokens);
  };
  const perTurn: Array<{ ms: number; cpu: number; prompt: number }> = [];
  try {
    let root: string | undefined;
    for (let i = 0; i < o.turns; i++) {
      const cpu0 = p.cpuMs();
      const sent: SentTurn = await driver.send("tool", { padding, ...(root ? { threadTs: root } : {}) });
      root ??= sent.ts;
      const ms = await within(60_000, `turn ${i + 1} of the long thread`, sent.done);
      perTurn.push({ ms, cpu: p.cpuMs() - cpu0, prompt: promptTokens });
    }
  } finally {
    stack.state.onRequest = undefined;
  }
  const starts = [0, Math.floor(o.turns / 2) - Math.floor(o.windowSize / 2), o.turns - o.windowSize];
  return {
    turns: o.turns,
    budgetTokens: loadConfig({}).env.HERMES_CONTEXT_BUDGET_TOKENS,
    maxPromptTokens,
    summaries,
    windows: starts.map((from) => {
      const w = perTurn.slice(from, from + o.windowSize);
      const ms = w.map((t) => t.ms).sort((a, b) => a - b);
      return {
        from: from + 1,
        to: from + w.length,
        e2eP50Ms: ms[Math.floor(ms.length / 2)] ?? Number.NaN,
        cpuMsPerTurn: w.reduce((a, t) => a + t.cpu, 0) / w.length,
        promptTokens: Math.max(...w.map((t) => t.prompt)),
      };
    }),
  };
}

/** Tokens of a chat request as the model server sees it: every message, tool call and tool schema. */
function requestTokens(req: RecordedRequest): number {
  let n = req.body.tools?.length ? countTokens(JSON.stringify(req.body.tools)) : 0;
  for (const m of req.body.messages) {
    n += 4 + countTokens(m.content ?? "");
    for (const c of m.tool_calls ?? [])
      n += 4 + countTokens(c.function.name) + countTokens(c.function.arguments);
  }
  return n;
}

export interface EmbeddedStart {
  /** First start on a fresh data dir: PGlite's initdb and every migration. */
  freshHealthzMs: number;
  /** The next start on that data dir. */
  warmHealthzMs: number;
  rssIdleMb: number;
}

/** `npm start` with nothing configured (sandbox workspace, embedded PGlite): fresh, then again. */
export async function measureEmbeddedStart(): Promise<EmbeddedStart> {
  const dir = tempDir("bench-embedded");
  const env = { HERMES_DATA_DIR: dir.path, HERMES_LOG_LEVEL: "warn" };
  let p: HermesProcess | undefined;
  const released = cleanUpOnInterrupt(async () => {
    await p?.stop();
    dir.remove();
  });
  try {
    p = await startHermesProcess("all", env);
    const freshHealthzMs = p.readyMs;
    await p.stop();
    p = await startHermesProcess("all", env);
    return { freshHealthzMs, warmHealthzMs: p.readyMs, rssIdleMb: await settledRssMb(p) };
  } finally {
    released();
    await p?.stop();
    dir.remove();
  }
}
