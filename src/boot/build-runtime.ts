import type { ChatModel } from "../agent/model/chat-model.ts";
import { modelCallLimit } from "../agent/model/limit-model-calls.ts";
import { type ModelSet, modelsForRun } from "../agent/model/models-for-run.ts";
import { createOpenAIModel } from "../agent/model/openai-model.ts";
import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Config, ModelConfig } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { Metrics } from "../core/metrics.ts";
import type { McpServerConfig } from "../mcp/mcp-config.ts";
import type { McpToolSource } from "../mcp/mcp-tool-source.ts";
import type { Redactor } from "../policy/redact.ts";
import type { ChannelProfiles } from "../profiles/channel-profiles.ts";
import { createAuditSink } from "../store/audit-sink.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import type { BuiltStorage } from "./build-storage.ts";
import { buildTools } from "./build-tools.ts";

/**
 * What every run shares: the models (primary, fallback, under one concurrency cap), the audit sink,
 * the tools and their guards, the daily budgets and the run limits. `mcp` must be closed on shutdown.
 */
export async function buildRuntime(o: {
  config: Config;
  logger: Logger;
  storage: Pick<BuiltStorage, "handle" | "audit" | "users" | "results" | "budgets">;
  slack: SlackPort;
  redactor: Redactor;
  rawEnv: Record<string, string | undefined>;
  mcpServers: readonly McpServerConfig[];
  /** Channel profiles: `delegate`'s sub-agent keeps its channel's allow-list, models and channel budget. */
  profiles?: ChannelProfiles | undefined;
  /** Model calls' latency and tokens are recorded here. */
  metrics?: Metrics;
}): Promise<{ runtime: AgentRuntime; mcp?: McpToolSource }> {
  const { config, storage } = o;
  const env = config.env;
  const measured = o.metrics ? { metrics: o.metrics } : {};
  // One cap on model calls in flight for the whole process: the primary and the fallback share it.
  // Each run rebuilds these with its budget meter inside the limit and command mode (`modelsForRun`).
  const models: ModelSet = {
    ...(config.model ? { primary: createOpenAIModel({ ...config.model, ...measured }) } : {}),
    ...(config.fallbackModel
      ? { fallback: createOpenAIModel({ ...config.fallbackModel, ...measured }) }
      : {}),
    limit: modelCallLimit(env.HERMES_MODEL_CONCURRENCY),
    ...(config.model ? { variant: modelVariants(config, measured) } : {}),
  };
  const { model, fallbackModel } = modelsForRun(models);
  // Only a real model's calls are paid from the daily token budgets (command mode costs nothing).
  const budget = config.model ? { budget: storage.budgets } : {};
  const auditSink = createAuditSink({ audit: storage.audit, redact: o.redactor.redact });
  // Every role connects to the MCP servers: workers call their tools, and a receiver's `/hermes tools`,
  // access checks and approval cards need the same tool list (and its servers' state) as the workers.
  const { registry, guards, mcp } = await buildTools({
    config,
    logger: o.logger,
    db: storage.handle.db,
    users: storage.users,
    results: storage.results,
    slack: o.slack,
    model,
    ...budget,
    models,
    auditSink,
    rawEnv: o.rawEnv,
    mcpServers: o.mcpServers,
    ...(o.profiles ? { profiles: o.profiles } : {}),
  });
  const runtime: AgentRuntime = {
    model,
    ...(fallbackModel ? { fallbackModel } : {}),
    registry,
    guards,
    auditSink,
    ...budget,
    models,
    limits: {
      maxSteps: env.HERMES_MAX_STEPS,
      contextBudgetTokens: env.HERMES_CONTEXT_BUDGET_TOKENS,
      turnTimeoutMs: env.HERMES_TURN_TIMEOUT_SECONDS * 1000,
    },
  };
  return { runtime, ...(mcp ? { mcp } : {}) };
}

/** The model line `/healthz` and the sandbox page show: the model and its server, or command mode. */
export function describeModel(config: Config): string {
  if (!config.model) return "command mode (no model configured)";
  const fallback = config.fallbackModel
    ? `, fallback ${config.fallbackModel.model} at ${config.fallbackModel.baseURL ?? "api.openai.com"}`
    : "";
  return `model ${config.model.model} at ${config.model.baseURL ?? "api.openai.com"}${fallback}`;
}

const MAX_VARIANTS = 64;

/**
 * The models channel profiles ask for: the primary's server (the fallback's: HERMES_FALLBACK_BASE_URL,
 * else the primary's) under another model name, or streaming otherwise than HERMES_STREAMING. One
 * client per variant, made when first asked for and kept (at most `MAX_VARIANTS`). A name the server
 * does not know answers 404: the run's sentence then says the channel's profile names it.
 */
function modelVariants(config: Config, measured: { metrics?: Metrics }): ModelSet["variant"] {
  const made = new Map<string, ChatModel>();
  return (role, o) => {
    const base: ModelConfig | undefined =
      role === "fallback" ? (config.fallbackModel ?? config.model) : config.model;
    if (!base) return undefined;
    const model = o.model ?? base.model;
    const stream = o.stream ?? base.stream ?? false;
    const key = `${role}\u0000${model}\u0000${stream}`;
    let found = made.get(key);
    if (!found) {
      if (made.size >= MAX_VARIANTS) made.clear();
      found = createOpenAIModel({
        ...base,
        model,
        stream,
        ...measured,
        ...(o.model
          ? {
              notFoundHint: `The model \`${model}\` this channel's profile names may not exist there: an admin can change it with \`/hermes profile set ${role === "fallback" ? "fallback_model" : "model"} …\`.`,
            }
          : {}),
      });
      made.set(key, found);
    }
    return found;
  };
}
