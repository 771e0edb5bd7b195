/**
 * End to end, one turn at a time: a signed `app_mention` in → the answer posted in the thread, on one
 * Hermes process (receiver and worker, as `npm start`) with Postgres and Redis. Each turn opens a
 * ticket with one tool call, so it takes two model steps (the scripted model waits `modelDelayMs`
 * per call). Hermes' own time per step = (total − model time) / 2, where the model time is what the
 * model server held the turn's two requests (from each one's last byte read to its answer written:
 * the scripted delay as its timer actually fired, ~0.4 ms late at the median here, and more when the
 * machine stalls meanwhile). The same figure with the nominal 2 × delay is kept beside it. CPU per
 * turn is what the Hermes process used (user + system, from /proc) over the measured turns, divided
 * by their number.
 */
import type { BenchStack } from "./lib/bench-stack.ts";
import { within } from "./lib/bench-stack.ts";
import { collectGarbage, watchGcPauses } from "./lib/collect-garbage.ts";
import type { HermesProcess } from "./lib/hermes-processes.ts";
import { type Summary, summarize } from "./lib/stats.ts";

const STEPS_PER_TURN = 2;

export interface E2EResult {
  turns: number;
  modelDelayMs: number;
  totalMs: Summary;
  ownPerStepMs: Summary;
  /** The same, with the nominal model time (2 × `modelDelayMs`) taken off instead of the held one. */
  ownPerStepNominalMs: Summary;
  /** What the model server held each turn's requests, per call (ms). */
  modelHeldPerCallMs: Summary;
  cpuMsPerTurn: number;
  /** The kernel's share of it (system time: socket reads and writes on loopback). */
  systemMsPerTurn: number;
  /** Monotonic-clock window (µs) of the measured turns, to cut a `--cpu-prof` profile to it. */
  windowUs: { from: number; to: number };
  /**
   * This (the benchmark's) process's collection pauses during the measured turns: it serves the
   * Slack emulator and the model, so a pause here lengthens a turn without being Hermes' time.
   */
  driverGc: { pauses: number; over10: number; maxMs: number; totalMs: number };
  /** Each measured turn's own window and Hermes' own time per step in it, in order. */
  perTurn: Array<{ from: number; to: number; ownPerStepMs: number }>;
}

export async function measureE2E(
  stack: BenchStack,
  hermes: HermesProcess,
  o: { turns: number; warmup: number; modelDelayMs: number },
): Promise<E2EResult> {
  const driver = stack.driver(hermes);
  stack.state.modelDelayMs = o.modelDelayMs;
  const one = async () => {
    const sent = await driver.send("tool");
    return within(60_000, `answer to ${sent.token}`, sent.done);
  };
  for (let i = 0; i < o.warmup; i++) await one();
  // The benchmark's own heap (earlier benchmarks filled it) collected before the clock starts.
  collectGarbage("major");
  const gcWatch = watchGcPauses();
  const totals: number[] = [];
  const held: number[] = [];
  const windows: Array<{ from: number; to: number }> = [];
  const cpu0 = hermes.cpuTimes();
  const from = monotonicUs();
  for (let i = 0; i < o.turns; i++) {
    const start = monotonicUs();
    const held0 = stack.model.heldMs;
    const calls0 = stack.state.modelCalls;
    totals.push(await one());
    held.push(stack.model.heldMs - held0);
    const calls = stack.state.modelCalls - calls0;
    if (calls !== STEPS_PER_TURN) throw new Error(`a turn made ${calls} model calls, not ${STEPS_PER_TURN}`);
    windows.push({ from: start, to: monotonicUs() });
  }
  const to = monotonicUs();
  const driverGc = gcWatch.stop();
  const own = totals.map((t, i) => (t - held[i]!) / STEPS_PER_TURN);
  const ownNominal = totals.map((t) => (t - STEPS_PER_TURN * o.modelDelayMs) / STEPS_PER_TURN);
  const cpu1 = hermes.cpuTimes();
  return {
    turns: o.turns,
    modelDelayMs: o.modelDelayMs,
    totalMs: summarize(totals),
    ownPerStepMs: summarize(own),
    ownPerStepNominalMs: summarize(ownNominal),
    modelHeldPerCallMs: summarize(held.map((ms) => ms / STEPS_PER_TURN)),
    cpuMsPerTurn: (cpu1.user + cpu1.system - cpu0.user - cpu0.system) / o.turns,
    systemMsPerTurn: (cpu1.system - cpu0.system) / o.turns,
    windowUs: { from, to },
    driverGc,
    perTurn: windows.map((w, i) => ({ ...w, ownPerStepMs: own[i]! })),
  };
}

/** CLOCK_MONOTONIC in µs: the clock of V8's profile timestamps in every process on this machine. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
