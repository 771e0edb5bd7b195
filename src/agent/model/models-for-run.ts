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
export function modelsForRun(set: ModelSet, meter: (model: ChatModel) => ChatModel = (m) => m): RunModels {
  const real = (model: ChatModel) => {
    const metered = meter(model);
    return set.limit ? limitModelCalls(metered, set.limit) : metered;
  };
  return {
    model: createCommandModel(set.primary ? { fallback: real(set.primary) } : {}),
    ...(set.fallback ? { fallbackModel: real(set.fallback) } : {}),
  };
}

/**
 * The run's models, paid from `requester`'s daily budgets when there are budgets: built from `models`
 * (metered inside command mode and the concurrency limit) when given; a bare `model` (tests, evals) is
 * taken to be a real model and metered whole.
 */
export function meteredModels(
  s: RunModels & { models?: ModelSet; budget?: TokenBudget; logger: Logger },
  requester: BudgetRequester,
): RunModels {
  const { budget, logger } = s;
  if (!budget) return { model: s.model, ...(s.fallbackModel ? { fallbackModel: s.fallbackModel } : {}) };
  const settlements = createSettlements();
  const meter = (model: ChatModel) => guardBudget(model, { budget, logger, requester, settlements });
  const settled = settlements.flush;
  if (s.models) return { ...modelsForRun(s.models, meter), settled };
  return {
    model: meter(s.model),
    ...(s.fallbackModel ? { fallbackModel: meter(s.fallbackModel) } : {}),
    settled,
  };
}
