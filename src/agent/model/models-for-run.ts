import type { LimitFunction } from "p-limit";
import type { Logger } from "../../core/logger.ts";
import { createSettlements, guardBudget } from "../budget/budget-guard.ts";
import type { BudgetRequester, TokenBudget } from "../budget/token-budget.ts";
import { createCommandModel } from "../command/command-model.ts";
import type { ChatModel } from "./chat-model.ts";
import { limitModelCalls } from "./limit-model-calls.ts";

/** The models configured at start-up, unwrapped, and the process-wide cap on calls in flight. */
export interface ModelSet {
  /** HERMES_MODEL; absent: command mode only. */
  primary?: ChatModel;
  /** HERMES_FALLBACK_MODEL. */
  fallback?: ChatModel;
  /** HERMES_MODEL_CONCURRENCY: one limit shared by the primary and the fallback of every run. */
  limit?: LimitFunction;
  /**
   * The primary's (or the fallback's) server under another model name, or streaming otherwise than
   * HERMES_STREAMING: what a channel's profile asks for (`RunModelChoice`). Absent: choices are ignored.
   */
  variant?: (role: "primary" | "fallback", o: { model?: string; stream?: boolean }) => ChatModel | undefined;
}

/** What one run asks of its models (its channel's profile): other names, streaming on or off. */
export interface RunModelChoice {
  model?: string;
  fallbackModel?: string;
  streaming?: boolean;
}

/** The models one run talks to. */
export interface RunModels {
  /** Command mode in front of the primary: `run <tool> …` and `help` never reach a model. */
  model: ChatModel;
  fallbackModel?: ChatModel;
  /** Waits until the budget settles of this run's calls are written (metered models only). */
  settled?: () => Promise<void>;
}

/**
 * `set` as one run uses it. Each real model is wrapped, innermost first: `meter` (the run's daily
 * budgets), then the concurrency limit, then (the primary) command mode. So a call reserves tokens only
 * once it holds a model slot (a turn waiting in line holds nothing), and only calls that reach a model
 * are metered: command mode's own answers cost nothing.
 */
export function modelsForRun(
  set: ModelSet,
  meter: (model: ChatModel) => ChatModel = (m) => m,
  choice: RunModelChoice = {},
): RunModels {
  const real = (model: ChatModel) => {
    const metered = meter(model);
    return set.limit ? limitModelCalls(metered, set.limit) : metered;
  };
  const primary = set.primary && chosen(set, "primary", choice.model, choice.streaming);
  const fallback =
    (set.fallback || choice.fallbackModel) && set.primary
      ? chosen(set, "fallback", choice.fallbackModel, choice.streaming)
      : undefined;
  return {
    model: createCommandModel(primary ? { fallback: real(primary) } : {}),
    ...(fallback ? { fallbackModel: real(fallback) } : {}),
  };
}

/** The configured model of `role`, or its variant when the run asks for another name or streaming. */
function chosen(
  set: ModelSet,
  role: "primary" | "fallback",
  name: string | undefined,
  stream: boolean | undefined,
): ChatModel | undefined {
  const configured = role === "primary" ? set.primary : set.fallback;
  if ((name === undefined && stream === undefined) || !set.variant) return configured;
  return (
    set.variant(role, {
      ...(name !== undefined ? { model: name } : {}),
      ...(stream !== undefined ? { stream } : {}),
    }) ?? configured
  );
}

/**
 * The run's models, paid from `requester`'s daily budgets when there are budgets, as `choice` (its
 * channel's profile) asks: built from `models` (metered inside command mode and the concurrency
 * limit) when given; a bare `model` (tests, evals) is taken to be a real model and metered whole.
 */
export function meteredModels(
  s: RunModels & { models?: ModelSet; budget?: TokenBudget; logger: Logger },
  requester: BudgetRequester,
  choice: RunModelChoice = {},
): RunModels {
  const { budget, logger } = s;
  if (!budget) {
    if (s.models && Object.keys(choice).length > 0) return modelsForRun(s.models, undefined, choice);
    return { model: s.model, ...(s.fallbackModel ? { fallbackModel: s.fallbackModel } : {}) };
  }
  const settlements = createSettlements();
  const meter = (model: ChatModel) => guardBudget(model, { budget, logger, requester, settlements });
  const settled = settlements.flush;
  if (s.models) return { ...modelsForRun(s.models, meter, choice), settled };
  return {
    model: meter(s.model),
    ...(s.fallbackModel ? { fallbackModel: meter(s.fallbackModel) } : {}),
    settled,
  };
}
