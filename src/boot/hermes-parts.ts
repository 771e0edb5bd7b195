import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { Metrics } from "../core/metrics.ts";
import type { ReadTurnFiles } from "../files/intake/turn-files-reader.ts";
import type { McpToolSource } from "../mcp/mcp-tool-source.ts";
import type { RunStops } from "../queue/run-stops.ts";
import type { TurnOutput } from "../queue/turn-output.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { SlackOutput } from "../slack/slack-output.ts";
import type { Storage } from "../storage.ts";
import type { BudgetStore } from "../store/budget-store.ts";

/**
 * Every part the composition root builds, in its groups. Only `start-hermes.ts` holds them all; each
 * handler, worker and background task is given the groups it uses (`Pick` of a group for fewer).
 */
export interface HermesParts {
  config: Config;
  logger: Logger;
  /** The stores (database, audit, approvals, runs, dedupe, users, thread history, feedback). */
  storage: Storage;
  /** What every run shares: models, tools, guards, the audit sink and the limits. */
  runtime: AgentRuntime;
  /** The paced Web API clients, the tools' Slack port, the redactor and the bot's identity. */
  slack: SlackOutput;
  /** The turn queue, with each turn's job kept durably beside its event until it finishes. */
  queue: TurnQueue;
  /** The workers' output port to Slack. */
  output: TurnOutput;
  /** Reads the files people share with a turn (Slack's side, the audit log, the result store). */
  readFiles?: ReadTurnFiles;
  /** The MCP servers (`HERMES_MCP_SERVERS`), when any are configured: their state and tools. */
  mcp?: McpToolSource;
  /** Daily token budgets and usage (`/hermes budget`, `/hermes usage`). */
  budgets?: BudgetStore;
  /** The user's Stop on a thread's run (agent sessions), from the receiver to the run's worker. */
  stops?: RunStops;
  /** This process's metrics (`/metrics`): turns, model calls, Slack 429s, audit appends. */
  metrics?: Metrics;
}
