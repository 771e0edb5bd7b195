/** Percentiles and means of latency samples (ms); nearest-rank, so p99 of 100 samples is the 99th. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export function mean(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / samples.length;
}

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    mean: mean(samples),
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    max: samples.length ? Math.max(...samples) : Number.NaN,
  };
}

/** A number for the table: fixed decimals, "n/a" for NaN. */
export function fmt(value: number, digits = 1): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}
