/**
 * Ack latency under a burst: `size` people mention Hermes at the same moment, each in a thread of
 * their own (signed `app_mention`s, prepared first and then sent all at once, one socket each, with
 * the same client as the floor in lib/ack-floor.ts; see lib/fire-at-once.ts). An ack is the receiver's HTTP answer
 * to the event; the turns behind them (one tool call, the scripted model at 50 ms per call) run on
 * whatever works turns for that receiver. Bursts of growing size show whether acks stay flat.
 */
import type { BenchStack } from "./lib/bench-stack.ts";
import { within } from "./lib/bench-stack.ts";
import type { HermesProcess } from "./lib/hermes-processes.ts";
import type { BurstClient } from "./lib/signed-burst.ts";
import { type Summary, summarize } from "./lib/stats.ts";

export interface BurstResult {
  size: number;
  ackMs: Summary;
  /** From the first event sent to the last answer posted. */
  allAnsweredMs: number;
  /** Monotonic µs (`process.hrtime`) the acks spanned: from the burst's send to its last ack, plus 5 ms. */
  acksUs: { from: number; to: number };
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

export async function measureAckBursts(
  stack: BenchStack,
  receiver: HermesProcess,
  o: { sizes: number[]; modelDelayMs: number; client?: BurstClient },
): Promise<BurstResult[]> {
  stack.state.modelDelayMs = o.modelDelayMs;
  const results: BurstResult[] = [];
  for (const size of o.sizes) {
    const t0 = performance.now();
    const sent = await stack.burst(receiver, "tool", size, o.client);
    const acked = nowUs();
    const slowest = Math.max(...sent.map((s) => s.ackMs));
    // Bounds a hang only: a minute plus half a second a turn on a busy machine.
    await within(60_000 + size * 500, `answers to a burst of ${size}`, Promise.all(sent.map((s) => s.done)));
    results.push({
      size,
      ackMs: summarize(sent.map((s) => s.ackMs)),
      allAnsweredMs: performance.now() - t0,
      acksUs: { from: acked - Math.round((slowest + 5) * 1000), to: acked },
    });
  }
  return results;
}
