import type { LatencyFinding } from "./types.ts";

/** The median (nearest rank) of the probes' round trips: one slow warm-up does not decide it. */
export function latencyOf(samplesMs: readonly number[]): LatencyFinding {
  if (samplesMs.length === 0) return { samplesMs: [] };
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { samplesMs: [...samplesMs], p50Ms: sorted[Math.ceil(sorted.length / 2) - 1]! };
}
