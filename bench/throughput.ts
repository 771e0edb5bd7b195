/**
 * Throughput with 1, 2 and 4 worker processes (`npm run worker`) on one Redis and Postgres behind one
 * receiver (`npm start -- --receiver` where this build has it; an "all" process otherwise, which then
 * works turns too). A burst of turns (one tool call each, the scripted model at `modelDelayMs` per
 * call) is sent at once, sized to keep every worker's turn slots busy; turns/s is measured between
 * the 10th and the 90th percentile of answers, so ramp-up and the tail do not count.
 */
import { loadConfig } from "../src/config.ts";
import type { BenchStack } from "./lib/bench-stack.ts";
import { within } from "./lib/bench-stack.ts";
import { type HermesProcess, RECEIVER_FLAG } from "./lib/hermes-processes.ts";
import { machineBusySince, machineTicks } from "./lib/proc-stats.ts";

const cpuUsageMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** Turns one worker process runs at once: the configured default, where this build has the setting. */
export function workerConcurrency(): number {
  const env = loadConfig({}).env as Record<string, unknown>;
  return typeof env.HERMES_WORKER_CONCURRENCY === "number" ? env.HERMES_WORKER_CONCURRENCY : 4;
}

export interface ThroughputRow {
  workers: number;
  modelDelayMs: number;
  turns: number;
  turnsPerSecond: number;
  /** Mean CPU (user + system) of the worker processes and of the receiver, as a share of one core. */
  workerCpu: number;
  receiverCpu: number;
  /** This benchmark's own process (sender, Slack emulator, model server), as a share of one core. */
  driverCpu: number;
  /** Share of all the machine's cores busy during the run (anyone's work, not only Hermes'). */
  machineBusy: number;
}

export async function measureThroughput(
  stack: BenchStack,
  o: { workers: number[]; modelDelaysMs: number[]; quick: boolean },
): Promise<{ rows: ThroughputRow[]; receiverRunsTurns: boolean; concurrency: number }> {
  const concurrency = workerConcurrency();
  const receiver = await stack.start("receiver");
  const driver = stack.driver(receiver);
  const workers: HermesProcess[] = [];
  const rows: ThroughputRow[] = [];
  for (const count of o.workers) {
    while (workers.length < count) workers.push(await stack.start("worker"));
    for (const delay of o.modelDelaysMs) {
      stack.state.modelDelayMs = delay;
      // Every process working turns (the receiver too, without --receiver) has `concurrency` slots.
      const slots = (count + (RECEIVER_FLAG ? 0 : 1)) * concurrency;
      // A slow model: two waves of every slot, so no worker waits for work. A fast one is CPU-bound:
      // a fixed amount of work, long enough for the rate to settle.
      const turns =
        delay >= 500 ? Math.max(o.quick ? 40 : 80, 2 * slots) : Math.max(o.quick ? 150 : 400, 4 * slots);
      const cpu0 = workers.map((w) => w.cpuMs());
      const rcpu0 = receiver.cpuMs();
      const own0 = process.cpuUsage();
      const machine0 = machineTicks();
      const t0 = performance.now();
      const sent = await Promise.all(Array.from({ length: turns }, () => driver.send("tool")));
      const answered = await within(
        120_000 + turns * 2 * delay,
        `${turns} turns on ${count} workers`,
        Promise.all(sent.map((s) => s.done)),
      );
      const elapsed = performance.now() - t0;
      // Answer times relative to the burst: each `done` is ms from its own send, sends are ~simultaneous.
      const sorted = answered.sort((a, b) => a - b);
      const lo = sorted[Math.floor(turns * 0.1)]!;
      const hi = sorted[Math.floor(turns * 0.9)]!;
      const windowTurns = Math.floor(turns * 0.9) - Math.floor(turns * 0.1);
      const seconds = elapsed / 1000;
      rows.push({
        workers: count,
        modelDelayMs: delay,
        turns,
        turnsPerSecond: hi > lo ? (windowTurns * 1000) / (hi - lo) : turns / seconds,
        workerCpu:
          workers.reduce((sum, w, i) => sum + (w.cpuMs() - (cpu0[i] ?? 0)), 0) / count / (seconds * 1000),
        receiverCpu: (receiver.cpuMs() - rcpu0) / (seconds * 1000),
        driverCpu: cpuUsageMs(process.cpuUsage(own0)) / (seconds * 1000),
        machineBusy: machineBusySince(machine0),
      });
    }
  }
  return { rows, receiverRunsTurns: !RECEIVER_FLAG, concurrency };
}

/** Throughput at 4 workers over 4× the throughput at 1, per model delay. */
export function scalingEfficiency(rows: ThroughputRow[], delay: number, at = 4): number {
  const one = rows.find((r) => r.workers === 1 && r.modelDelayMs === delay);
  const many = rows.find((r) => r.workers === at && r.modelDelayMs === delay);
  return one && many ? many.turnsPerSecond / (at * one.turnsPerSecond) : Number.NaN;
}
