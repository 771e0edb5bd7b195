import { formatTokens, shortTokens } from "../../core/token-amount.ts";
import type { BudgetRefusal } from "../budget/token-budget.ts";

export type StopReason =
  | "max_steps"
  | "repeated_failure"
  | "turn_timeout"
  | "truncated"
  | "model_error"
  | "unreadable_calls"
  | "cancelled"
  | "budget"
  /** The daily token budgets could not be read (their database is down); the sentence is the error's. */
  | "storage_unavailable";

/** The sentence the user reads when a run ends without a normal answer. One place, so tests pin them. */
export function stopMessage(
  reason: StopReason,
  d: {
    steps?: number;
    tool?: string;
    failures?: number;
    lastError?: string;
    budgetSeconds?: number;
    maxTokens?: number;
    error?: string;
    budget?: BudgetRefusal;
  } = {},
): string {
  switch (reason) {
    case "max_steps":
      return `I stopped after ${d.steps} steps without finishing, which is my limit for one request. Ask again with a narrower task if you need more.`;
    case "repeated_failure":
      return `I stopped because the tool ${d.tool} failed ${d.failures} times in a row (last error: ${d.lastError ?? "unknown"}).`;
    case "turn_timeout":
      return `I stopped because this request ran longer than its time budget of ${d.budgetSeconds} seconds.`;
    case "truncated":
      return `I stopped because the model's output was cut off twice at its limit of ${d.maxTokens} output tokens. Try a shorter request, or raise HERMES_MODEL_MAX_TOKENS.`;
    case "model_error":
      return `I could not get an answer from the model: ${d.error ?? "unknown error"}`;
    case "unreadable_calls":
      return "I stopped because the model twice wrote a tool call in a form I could not read, so nothing was done. An admin can run `npm run model:check` (or `/hermes model`) to see which format the model writes and how to fix the server's tool parser.";
    case "cancelled":
      return "The request was cancelled before it finished.";
    case "budget":
      return budgetMessage(d.budget!);
    case "storage_unavailable":
      return d.error ?? "Hermes could not reach its database, so this was not done. Try again in a moment.";
  }
}

/**
 * Why a model call was not made: whose daily budget (the requester's or the channel's) has no room,
 * when it resets, and the command an admin runs to raise it (to at least twice the limit, and enough
 * for what was used today plus this request).
 */
function budgetMessage(r: BudgetRefusal): string {
  const mine = r.scope === "user";
  const limit = `${formatTokens(r.limit)} tokens`;
  const suggested = roundUp(Math.max(r.limit * 2, r.used + r.reserved + r.requested));
  const raise = `An admin can raise it with /hermes budget ${mine ? `<@${r.id}>` : `<#${r.id}>`} ${shortTokens(suggested)}.`;
  if (r.requested > r.limit)
    return `This request needs up to ${formatTokens(r.requested)} tokens, more than ${mine ? "your" : "this channel's"} whole daily token budget (${limit}), so I did not start it. ${raise}`;
  return `${mine ? "You have" : "This channel has"} used ${mine ? "your" : "its"} daily token budget (${limit}); it resets at 00:00 UTC. ${raise}`;
}

/** Up to a round amount a person would type: 2,897 → 3,000; 1,234,567 → 1,300,000. */
function roundUp(n: number): number {
  const step = n >= 1_000_000 ? 100_000 : n >= 1_000 ? 1_000 : 100;
  return Math.ceil(n / step) * step;
}

export const REJECTED_RESULT = (by?: string) =>
  `Not run: ${by ? `<@${by}>` : "a human"} rejected this call. Do not retry it or try to reach the same effect another way; tell the user it was not done.`;
export const EXPIRED_RESULT =
  "Not run: the approval for this call expired without a decision. Do not retry it or try to reach the same effect another way; tell the user it was not done.";
export const DENIED_RESULT = (reason: string) =>
  `Not run: permission denied (${reason}). Do not try to reach the same effect another way; tell the user.`;
/** A name in the call's arguments that is not a person or channel in the workspace (the sentence says which). */
export const UNRESOLVED_RESULT = (sentence: string) => `Not run: ${sentence}`;
export const AUDIT_UNAVAILABLE_RESULT =
  "Not run: the audit log is unavailable, so actions are refused until it is back. Tell the user to try again later.";
export const ARGS_CHANGED_RESULT =
  "Not run: the call's arguments differ from the ones that were approved, so the approval does not apply.";
export const TOOL_CHANGED_RESULT =
  "Not run: this tool's definition (description, inputs or approval rules) changed after the call was approved, so the approval does not apply. Tell the user; they can ask again.";
export const INTERRUPTED_RESULT =
  "Interrupted: Hermes restarted while this call was running, so it may or may not have taken effect. It was not retried. Do not run it again on your own; tell the user it was interrupted and may need checking.";
export const RECOVERED_RESULT = (what: string) =>
  `(Recorded before a restart; this is the stored summary of the outcome.) ${what}`;
