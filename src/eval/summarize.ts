import { callCost, type ModelPrices } from "../core/model-prices.ts";
import type { RunRecord } from "./scenario-transcript.ts";
import type { RunScore } from "./score-run.ts";

export interface ScoredRun {
  record: RunRecord;
  score: RunScore;
  /** USD, when the model's price is known. */
  costUsd?: number;
}

export interface ScenarioResult {
  name: string;
  file: string;
  runs: ScoredRun[];
}

export interface Totals {
  runs: number;
  passed: number;
  /** 0..1 */
  passRate: number;
  /** 0..1, or null when no scenario expects or forbids a call. */
  toolChoice: number | null;
  /** 0..1, or null when no call was made. */
  argValidity: number | null;
  repairs: number;
  /** Mean steps per run. */
  steps: number;
  tokens: number;
  latencyP50Ms: number;
  /** Null when some run's model has no configured price (tokens only). */
  costUsd: number | null;
}

/**
 * The cost of one run in USD: each model call priced as the bot prices it (src/core/model-prices.ts),
 * by the model that answered it (then the configured name); undefined when some call's model has no
 * price (tokens only).
 */
export function runCost(record: RunRecord, prices: ModelPrices): number | undefined {
  let usd = 0;
  for (const call of record.usageByCall) {
    const cost = callCost(prices, call.models, call);
    if (cost === null) return undefined;
    usd += cost;
  }
  return usd;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
}

const ratio = (n: number, d: number) => (d === 0 ? null : n / d);

/** Totals over runs (a scenario's, or all of them). */
export function totalsOf(runs: readonly ScoredRun[]): Totals {
  const sum = (f: (r: ScoredRun) => number) => runs.reduce((acc, r) => acc + f(r), 0);
  const passed = runs.filter((r) => r.score.passed).length;
  return {
    runs: runs.length,
    passed,
    passRate: runs.length ? passed / runs.length : 0,
    toolChoice: ratio(
      sum((r) => r.score.toolChoice.correct),
      sum((r) => r.score.toolChoice.total),
    ),
    argValidity: ratio(
      sum((r) => r.score.argValidity.valid),
      sum((r) => r.score.argValidity.total),
    ),
    repairs: sum((r) => r.record.repairs),
    steps: runs.length ? sum((r) => r.record.steps) / runs.length : 0,
    tokens: sum((r) => r.record.promptTokens + r.record.completionTokens),
    latencyP50Ms: median(runs.map((r) => r.record.latencyMs)),
    costUsd: runs.every((r) => r.costUsd !== undefined) ? sum((r) => r.costUsd ?? 0) : null,
  };
}
