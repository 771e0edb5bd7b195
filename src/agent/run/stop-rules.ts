import { type BudgetExceededError, BudgetUnavailableError } from "../budget/budget-guard.ts";
import type { Limits, TurnStatus } from "./runtime-types.ts";
import type { FailureStreak } from "./state.ts";
import { type StopReason, stopMessage } from "./stop-messages.ts";

/**
 * How the step just taken ended when the model is to be asked again (or the run is to stop): what
 * the stop rules look at besides the run's counters.
 */
export type LastStep =
  /** Nothing to stop for: the step's calls ran, or the model is asked again with a hint. */
  | { kind: "next" }
  /** The turn's signal fired during the step; `cancelled` when the caller cancelled it (not the clock). */
  | { kind: "aborted"; cancelled: boolean }
  /** The step's model call was refused by a daily token budget, or the budgets could not be read. */
  | { kind: "refused"; error: BudgetExceededError | BudgetUnavailableError }
  /** The model could not be reached, and no fallback is left. */
  | { kind: "model_error"; error: string }
  /** The reply was cut off at the output limit, `count` times in a row. */
  | { kind: "truncated"; count: number }
  /** The model kept writing calls no format reads, and no fallback is left. */
  | { kind: "unreadable" }
  /** A tool failed too often in a row. */
  | { kind: "repeated_failure"; streak: FailureStreak };

/** What a stop rule sees between two steps. */
export interface StopView {
  /** Steps taken so far. */
  step: number;
  limits: Limits;
  /** The primary model's output limit (named in the truncation sentence). */
  maxOutputTokens: number;
  last: LastStep;
}

/** How a run ends without an answer: its status, the reason and the sentence the user reads. */
export interface Stop {
  status: Exclude<TurnStatus, "completed" | "paused">;
  reason: StopReason;
  answer: string;
}

/** One reason to end a run before the next step; undefined when it does not apply. */
export type StopRule = (view: StopView) => Stop | undefined;

export const aborted: StopRule = ({ last, limits }) => {
  if (last.kind !== "aborted") return undefined;
  if (last.cancelled) return { status: "stopped", reason: "cancelled", answer: stopMessage("cancelled") };
  const budgetSeconds = Number((limits.turnTimeoutMs / 1000).toFixed(1));
  return {
    status: "stopped",
    reason: "turn_timeout",
    answer: stopMessage("turn_timeout", { budgetSeconds }),
  };
};

/** No room in a daily token budget (its sentence says whose), or the budgets could not be read. */
export const budgetRefused: StopRule = ({ last }) => {
  if (last.kind !== "refused") return undefined;
  if (last.error instanceof BudgetUnavailableError) {
    const answer = stopMessage("storage_unavailable", { error: last.error.message });
    return { status: "failed", reason: "storage_unavailable", answer };
  }
  return { status: "stopped", reason: "budget", answer: last.error.message };
};

export const modelError: StopRule = ({ last }) =>
  last.kind === "model_error"
    ? { status: "failed", reason: "model_error", answer: stopMessage("model_error", { error: last.error }) }
    : undefined;

export const truncated: StopRule = ({ last, limits, maxOutputTokens }) =>
  last.kind === "truncated" && last.count >= limits.maxTruncations
    ? {
        status: "stopped",
        reason: "truncated",
        answer: stopMessage("truncated", { maxTokens: maxOutputTokens }),
      }
    : undefined;

export const unreadableCalls: StopRule = ({ last }) =>
  last.kind === "unreadable"
    ? { status: "failed", reason: "unreadable_calls", answer: stopMessage("unreadable_calls") }
    : undefined;

export const repeatedFailure: StopRule = ({ last }) =>
  last.kind === "repeated_failure"
    ? {
        status: "stopped",
        reason: "repeated_failure",
        answer: stopMessage("repeated_failure", {
          tool: last.streak.tool,
          failures: last.streak.failures,
          lastError: last.streak.lastError,
        }),
      }
    : undefined;

export const maxSteps: StopRule = ({ step, limits }) =>
  step >= limits.maxSteps
    ? { status: "stopped", reason: "max_steps", answer: stopMessage("max_steps", { steps: limits.maxSteps }) }
    : undefined;

/**
 * The rules a run is checked against before each step, in order: the first that applies ends it.
 * What the last step ran into comes before the step limit, so a run that stops for a reason says it.
 */
export const STOP_RULES: readonly StopRule[] = [
  aborted,
  budgetRefused,
  modelError,
  truncated,
  unreadableCalls,
  repeatedFailure,
  maxSteps,
];

export function firstStop(rules: readonly StopRule[], view: StopView): Stop | undefined {
  for (const rule of rules) {
    const stop = rule(view);
    if (stop) return stop;
  }
  return undefined;
}
