import type { WebClient } from "@slack/web-api";
import type { ChatModel } from "../agent/chat-model.ts";
import type { ToolEventSink } from "../agent/policy-hook.ts";
import type { Limits } from "../agent/runtime-types.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { ApprovalStore } from "../policy/approval-store.ts";
import type { PolicyGuard } from "../policy/create-policy.ts";
import type { Redactor } from "../policy/redact.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { AuditLog } from "../store/audit.ts";
import type { DatabaseHandle } from "../store/db.ts";
import type { EventDedupe } from "../store/event-dedupe.ts";
import type { RunStore } from "../store/run-store.ts";
import type { SessionStore } from "../store/session-store.ts";
import type { UserStore } from "../store/user-store.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import type { SlackPort } from "../tools/slack-port.ts";

/** Everything the Slack handlers and workers use, built once in `main.ts` and passed in. */
export interface SlackServices {
  config: Config;
  logger: Logger;
  db: DatabaseHandle;
  audit: AuditLog;
  approvals: ApprovalStore;
  runs: RunStore;
  events: EventDedupe;
  users: UserStore;
  sessions: SessionStore;
  queue: TurnQueue;
  registry: ToolRegistry;
  /** The model, wrapped so `run <tool> …` commands work with or without one. */
  model: ChatModel;
  /** HERMES_FALLBACK_MODEL, when configured: takes over a run whose model is down or unreadable. */
  fallbackModel?: ChatModel;
  /**
   * The bot's Web API client (`SLACK_API_URL` applied), paced to Slack's rate limits per method and
   * channel (`slack/rate-limit/`): calls wait their turn, a 429 is waited out and retried, and pauses
   * only its own budget. A few bounded retries of network errors.
   */
  client: WebClient;
  /**
   * The same budgets, for progress updates only: they go after the calls that must, a newer update of
   * a message replaces a queued one, and a rate-limited one is dropped, so progress never delays an answer.
   */
  progressClient: WebClient;
  slack: SlackPort;
  auditSink: ToolEventSink;
  /** Redaction with the process's secret values: credentials leave answers and cards (`redactSecrets`). */
  redactor: Redactor;
  /** Tool-specific permission checks only code can make (e.g. send_message destinations). */
  guards: Record<string, PolicyGuard>;
  limits: Partial<Limits>;
  bot: { userId: string; botId?: string; teamId: string };
}
