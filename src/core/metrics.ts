/** How a turn ended, as its metrics count it. */
export type TurnOutcome = "completed" | "paused" | "stopped" | "failed";

/**
 * What the rooms record for `/metrics`: each call is a counter or histogram update (a label lookup, no
 * allocation), so recording costs a turn nothing measurable. The process's registry implements it
 * (`metrics/`); `noMetrics` records nothing (tests, the CLIs).
 */
export interface Metrics {
  /** A turn (or a resumed run) ended; `seconds` from the worker taking its job. */
  turnFinished(outcome: TurnOutcome, seconds: number): void;
  /** One model call answered: `model` as configured, its latency and the tokens it used. */
  modelCall(model: string, seconds: number, promptTokens: number, completionTokens: number): void;
  /** Slack answered 429 to a call on this rate budget (its method, then a channel for per-channel budgets). */
  slackRateLimited(budgetKey: string): void;
  /** One audit append landed (or failed) after `seconds`. */
  auditAppend(seconds: number): void;
}

export const noMetrics: Metrics = {
  turnFinished() {},
  modelCall() {},
  slackRateLimited() {},
  auditAppend() {},
};
