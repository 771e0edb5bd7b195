import type { Logger } from "../../core/logger.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { BudgetRequester, TokenBudget } from "../budget/token-budget.ts";
import type { ChatModel } from "../model/chat-model.ts";
import { type ModelSet, meteredModels, type RunModelChoice } from "../model/models-for-run.ts";
import type { Access, PolicyGuard, ToolEventSink } from "./policy-hook.ts";
import type { Limits, RuntimeDeps } from "./runtime-types.ts";

/** What every run shares, built once at start-up: the models, the tools, the audit sink and the limits. */
export interface AgentRuntime {
  /** The model, wrapped so `run <tool> …` commands work with or without one. */
  model: ChatModel;
  /** HERMES_FALLBACK_MODEL, when configured: takes over a run whose model is down or unreadable. */
  fallbackModel?: ChatModel;
  registry: ToolRegistry;
  /** Tool-specific permission checks only code can make (e.g. send_message destinations). */
  guards: Record<string, PolicyGuard>;
  /** Where every run's tool events go (the audit log). */
  auditSink: ToolEventSink;
  limits: Partial<Limits>;
  /** Daily token budgets every model call of a run is paid from (absent: calls are not metered). */
  budget?: TokenBudget;
  /**
   * What `model` and `fallbackModel` are built from (`modelsForRun`): with budgets, each run rebuilds
   * them with its own meter inside command mode and the concurrency limit. Absent: `model` is metered whole.
   */
  models?: ModelSet;
}

/** What a run's channel changes about how it runs (its profile): its models, streaming, its channel's budget. */
export type RunSettings = RunModelChoice & Pick<BudgetRequester, "channelTokensPerDay">;

/**
 * The runtime's dependencies for a run on behalf of `access`'s user: their tools, their policy, the
 * audit sink, and models (as `settings` ask) whose calls count against that user's and `channelId`'s
 * daily budgets (`teamId`: the run's tenant key, whose channel overrides apply).
 */
export function runtimeDepsFor(
  s: Omit<AgentRuntime, "guards"> & { logger: Logger },
  access: Pick<Access, "userId" | "policy" | "allowed">,
  signal: AbortSignal,
  channelId?: string,
  settings: RunSettings = {},
  teamId?: string,
): RuntimeDeps {
  const { channelTokensPerDay, ...choice } = settings;
  const requester = {
    userId: access.userId,
    channelId,
    ...(teamId !== undefined ? { teamId } : {}),
    ...(channelTokensPerDay !== undefined ? { channelTokensPerDay } : {}),
  };
  return {
    ...meteredModels(s, requester, choice),
    registry: s.registry,
    logger: s.logger,
    policy: access.policy,
    toolNames: [...access.allowed],
    onToolEvent: s.auditSink,
    limits: s.limits,
    signal,
  };
}
