import type { JsonValue } from "../core/canonical-json.ts";
import {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  sql,
  text,
  timestamp,
  unique,
  uniqueIndex,
} from "./drizzle.ts";
import { newId } from "./ids.ts";

/**
 * The Postgres contract (docs/architecture.md, "Contracts"). Column names are public: admins query them with SQL and BI
 * tools, so rename nothing without a migration note. Statuses are `text` + CHECK rather than Postgres
 * enums: adding a value is then an ordinary migration that also runs inside a transaction.
 */

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();
const oneOf = (column: string, values: readonly string[]) =>
  sql.raw(`${column} IN (${values.map((v) => `'${v}'`).join(", ")})`);

export const AUDIT_ACTIONS = [
  "tool.requested",
  "tool.denied",
  "tool.approval_requested",
  "tool.approved",
  "tool.rejected",
  "tool.expired",
  "tool.executed",
  "tool.failed",
  // Someone read the audit log (a /hermes audit page, CSV export, App Home panel, the CLI).
  "audit.queried",
  // A click on an approval that changed nothing: it lost the race, came after the decision or the
  // expiry, named no approval, came from another card, or replayed a signed request.
  "approval.ignored",
  // Someone rated an answer 👍/👎 (feedback buttons): args {value}, run_id set.
  "run.feedback",
  // A 👍/👎 click that stored nothing: its value named no run, or a run whose answer is not the
  // clicked message, or the clicker could not see that answer. args {reason, value?, message_ts}.
  "feedback.ignored",
  // An admin changed a daily token budget (/hermes budget): args {scope, id, tokens_per_day}.
  "budget.changed",
  // Hermes read a file shared with a turn: tool "files", args {file_id, name, mime, size, sha256,
  // extracted}, run_id set.
  "file.read",
  // A file shared with a turn that Hermes did not read: args {file_id, name, code, …}, error the
  // sentence the person was told.
  "file.refused",
  // An admin changed a channel's profile, or the default one (/hermes profile set): args {channel,
  // before, after}, each the profile's fields or null when there was none.
  "profile.changed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * Append-only and hash-chained (see audit.ts for the hash recipe). Triggers refusing UPDATE, DELETE
 * and TRUNCATE, and the `hermes_app` grants, live in the hand-written migration. `id` is "by default"
 * identity because the writer draws it with nextval() before inserting: the id is part of the hash.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    action: text("action").$type<AuditAction>().notNull(),
    tool: text("tool").notNull(),
    userId: text("user_id"),
    teamId: text("team_id"),
    channelId: text("channel_id"),
    threadTs: text("thread_ts"),
    runId: text("run_id"),
    toolCallId: text("tool_call_id"),
    approvalId: text("approval_id"),
    actorId: text("actor_id"),
    args: jsonb("args").$type<JsonValue>(),
    argsSha256: text("args_sha256"),
    resultSummary: text("result_summary"),
    error: text("error"),
    durationMs: integer("duration_ms"),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
    /**
     * The hash chain the row belongs to: one per tenant (`core/tenant.ts`), `coalesce(team_id, '')`
     * for every row written since drizzle/0015 (a CHECK says so); rows from before form the '' chain
     * whatever their team. Not hashed: the row's place in its chain (prev_hash) already binds it.
     */
    chainId: text("chain_id").notNull().default(""),
  },
  (t) => [
    // UNIQUE within a chain: two rows can never claim the same predecessor, so a chain cannot fork
    // even if a writer skipped the advisory lock (its insert fails instead).
    unique("audit_log_prev_hash_unique").on(t.chainId, t.prevHash),
    check("audit_log_chain_id_check", sql`chain_id = coalesce(team_id, '')`),
    index("audit_log_chain_id_id_idx").on(t.chainId, t.id),
    index("audit_log_team_id_created_at_idx").on(t.teamId, t.createdAt),
    index("audit_log_created_at_id_idx").on(t.createdAt, t.id),
    index("audit_log_user_id_created_at_idx").on(t.userId, t.createdAt),
    index("audit_log_actor_id_created_at_idx").on(t.actorId, t.createdAt),
    index("audit_log_tool_created_at_idx").on(t.tool, t.createdAt),
    // `/hermes audit channel:#x` reads one channel's rows, newest first.
    index("audit_log_channel_id_created_at_idx").on(t.channelId, t.createdAt),
    index("audit_log_run_id_idx").on(t.runId),
    index("audit_log_tool_call_id_idx").on(t.toolCallId),
  ],
);

export const APPROVAL_STATUSES = ["pending", "approved", "rejected", "expired"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** One row per call that needs a human. Bound to the exact call by `args_sha256` of canonical args. */
export const approvals = pgTable(
  "approvals",
  {
    id: text("id")
      .primaryKey()
      .$defaultFn(() => newId("apr")),
    status: text("status").$type<ApprovalStatus>().notNull().default("pending"),
    tool: text("tool").notNull(),
    args: jsonb("args").notNull(),
    argsSha256: text("args_sha256").notNull(),
    requesterId: text("requester_id").notNull(),
    sessionKey: text("session_key").notNull(),
    runId: text("run_id"),
    toolCallId: text("tool_call_id"),
    teamId: text("team_id"),
    channelId: text("channel_id"),
    threadTs: text("thread_ts"),
    /** Who may decide, as the policy's rule name (e.g. `requester_or_admin`, `admin`, `not_requester`). */
    approvers: text("approvers").notNull().default("requester_or_admin"),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    decidedBy: text("decided_by"),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    cardChannel: text("card_channel"),
    cardTs: text("card_ts"),
    reason: text("reason"),
  },
  (t) => [
    check("approvals_status_check", oneOf("status", APPROVAL_STATUSES)),
    index("approvals_status_expires_at_idx").on(t.status, t.expiresAt),
    index("approvals_run_id_idx").on(t.runId),
    index("approvals_team_id_status_idx").on(t.teamId, t.status),
  ],
);

export const RUN_STATUSES = ["running", "paused", "completed", "failed", "stopped"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** An agent run; `snapshot` is what the loop needs to resume a paused run exactly where it stopped. */
export const runs = pgTable(
  "runs",
  {
    id: text("id")
      .primaryKey()
      .$defaultFn(() => newId("run")),
    sessionKey: text("session_key").notNull(),
    status: text("status").$type<RunStatus>().notNull().default("running"),
    snapshot: jsonb("snapshot").notNull(),
    userId: text("user_id"),
    /** The Slack event whose turn started this run: a turn picked up again continues it, not a new one. */
    eventId: text("event_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    // The run as a record (what admins see with /hermes run, the sandbox Runs panel, npm run runs).
    // Written as the run goes; every text is redacted like the audit log.
    teamId: text("team_id"),
    channelId: text("channel_id"),
    threadTs: text("thread_ts"),
    /** The request that started the run (redacted, capped): lists and `eval --from-feedback`. */
    requestText: text("request_text"),
    /** Why a run stopped or failed (step limit, budget, cancelled…), a sentence; null when answered. */
    stopReason: text("stop_reason"),
    /** Every model that answered a step, in order of first use. */
    models: text("models").array().notNull().default(sql`'{}'::text[]`),
    steps: integer("steps").notNull().default(0),
    modelCalls: integer("model_calls").notNull().default(0),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    /** Estimated from configured per-model prices; null when a model's price is unknown (tokens only). */
    costUsd: doublePrecision("cost_usd"),
    /** Wall time split: model calls, tool calls, waiting for approvals, and Hermes' own time. */
    modelMs: integer("model_ms").notNull().default(0),
    toolMs: integer("tool_ms").notNull().default(0),
    approvalWaitMs: integer("approval_wait_ms").notNull().default(0),
    ownMs: integer("own_ms").notNull().default(0),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [
    check("runs_status_check", oneOf("status", RUN_STATUSES)),
    index("runs_user_id_created_at_idx").on(t.userId, t.createdAt),
    index("runs_channel_id_created_at_idx").on(t.channelId, t.createdAt),
    index("runs_created_at_idx").on(t.createdAt),
    index("runs_session_key_idx").on(t.sessionKey),
    index("runs_status_idx").on(t.status),
    uniqueIndex("runs_event_id_key").on(t.eventId),
    index("runs_updated_at_idx").on(t.updatedAt),
    index("runs_team_id_created_at_idx").on(t.teamId, t.createdAt),
  ],
);

export const TICKET_STATUSES = ["open", "in_progress", "closed"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ["low", "medium", "high", "urgent"] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];
export interface TicketComment {
  /** Slack user id of the author. */
  by: string;
  /** ISO 8601 UTC. */
  at: string;
  text: string;
}

/**
 * A file shared in the ticket's Slack conversation, kept by reference (Slack keeps the bytes). Added by
 * `create_ticket` / `update_ticket` from the files Hermes read in that conversation.
 */
export interface TicketAttachment {
  /** Slack's file id (`F…`); a ticket holds each file once. */
  fileId: string;
  name: string;
  /** The type sniffed from the bytes, e.g. `application/pdf`. */
  mime: string;
  /** Bytes. */
  size: number;
  /** sha256 of the bytes Hermes read, hex. */
  sha256: string;
  permalink?: string;
  /** Slack user id of who attached it. */
  addedBy: string;
  /** ISO 8601 UTC. */
  addedAt: string;
}

/**
 * `search_text` is a stored, lower-cased `title + description`, searched with
 * `search_text LIKE '%' || lower(query) || '%'`. Why not tsvector: Postgres text search has no Chinese
 * parser (the `simple` config keeps a whole unspaced Chinese sentence as one token), and pg_trgm is not
 * available on PGlite. A substring match is right for English and Chinese on both drivers; the
 * hand-written migration adds a pg_trgm GIN index on it where the extension can be created.
 */
export const tickets = pgTable(
  "tickets",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    /** The tenant (`core/tenant.ts`); ids are global, so another team's ticket reads as missing. */
    teamId: text("team_id").notNull().default(""),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    status: text("status").$type<TicketStatus>().notNull().default("open"),
    priority: text("priority").$type<TicketPriority>().notNull().default("medium"),
    assignee: text("assignee"),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    searchText: text("search_text").generatedAlwaysAs(sql`lower(title || ' ' || description)`),
    /** Comments added by `update_ticket`, oldest first; a ticket's own history, so no table of its own. */
    comments: jsonb("comments").$type<TicketComment[]>().notNull().default([]),
    /** Files attached from the Slack conversation, oldest first; references only, never the bytes. */
    attachments: jsonb("attachments").$type<TicketAttachment[]>().notNull().default([]),
  },
  (t) => [
    check("tickets_status_check", oneOf("status", TICKET_STATUSES)),
    check("tickets_priority_check", oneOf("priority", TICKET_PRIORITIES)),
    index("tickets_status_idx").on(t.status),
    index("tickets_assignee_idx").on(t.assignee),
    index("tickets_created_by_idx").on(t.createdBy),
    index("tickets_team_id_id_idx").on(t.teamId, t.id),
  ],
);

export const MEMORY_SCOPES = ["user", "channel"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** Facts the agent was asked to remember: per user, or per channel (then `channel_id` is set). */
export const memories = pgTable(
  "memories",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    /** The tenant (`core/tenant.ts`): a memory is recalled only in its own team. */
    teamId: text("team_id").notNull().default(""),
    scope: text("scope").$type<MemoryScope>().notNull(),
    ownerId: text("owner_id").notNull(),
    channelId: text("channel_id"),
    fact: text("fact").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check("memories_scope_check", oneOf("scope", MEMORY_SCOPES)),
    check("memories_channel_scope_check", sql`scope <> 'channel' OR channel_id IS NOT NULL`),
    index("memories_owner_id_idx").on(t.scope, t.ownerId),
    index("memories_channel_id_idx").on(t.channelId),
    index("memories_team_id_owner_id_idx").on(t.teamId, t.scope, t.ownerId),
    index("memories_team_id_channel_id_idx").on(t.teamId, t.channelId),
  ],
);

/** Full tool results, kept by reference when the copy sent to the model was truncated (`fetch_result`). */
export const results = pgTable(
  "results",
  {
    id: text("id")
      .primaryKey()
      .$defaultFn(() => newId("res")),
    runId: text("run_id"),
    /** `fetch_result` only serves a result to the conversation that produced it. */
    sessionKey: text("session_key"),
    toolCallId: text("tool_call_id"),
    tool: text("tool").notNull(),
    content: text("content").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("results_run_id_idx").on(t.runId), index("results_created_at_idx").on(t.createdAt)],
);

export const SLACK_EVENT_STATUSES = ["received", "done", "failed"] as const;
export type SlackEventStatus = (typeof SLACK_EVENT_STATUSES)[number];

/** Durable dedupe of Slack deliveries: insert `event_id` ON CONFLICT DO NOTHING; a conflict is a retry. */
export const slackEvents = pgTable(
  "slack_events",
  {
    eventId: text("event_id").primaryKey(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
    status: text("status").$type<SlackEventStatus>().notNull().default("received"),
    sessionKey: text("session_key"),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    /** The queued turn job while `received` (embedded queue): picked up again at the next start. */
    payload: jsonb("payload"),
  },
  (t) => [
    check("slack_events_status_check", oneOf("status", SLACK_EVENT_STATUSES)),
    index("slack_events_received_at_idx").on(t.receivedAt),
    index("slack_events_status_idx").on(t.status),
  ],
);

export const USER_LEVELS = ["viewer", "user", "admin"] as const;
export type UserLevel = (typeof USER_LEVELS)[number];

/** Slack user id → level. `tool_allow` NULL = no allow-list (level decides); `tool_deny` always applies. */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    level: text("level").$type<UserLevel>().notNull().default("user"),
    displayName: text("display_name"),
    toolAllow: text("tool_allow").array(),
    toolDeny: text("tool_deny").array(),
    /** This user's daily token budget, overriding HERMES_BUDGET_USER_TOKENS_PER_DAY; null = the default. */
    tokenBudgetPerDay: bigint("token_budget_per_day", { mode: "number" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  () => [check("users_level_check", oneOf("level", USER_LEVELS))],
);

/**
 * Recurring prompts (`/hermes schedule add`): the turn runs as `owner_id` in the team `team_id` (the
 * tenant, `core/tenant.ts`) and posts to `channel_id`.
 */
export const schedules = pgTable(
  "schedules",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    teamId: text("team_id").notNull().default(""),
    cron: text("cron").notNull(),
    timezone: text("timezone").notNull().default("UTC"),
    channelId: text("channel_id").notNull(),
    prompt: text("prompt").notNull(),
    ownerId: text("owner_id").notNull(),
    createdAt: createdAt(),
    enabled: boolean("enabled").notNull().default(true),
  },
  (t) => [index("schedules_team_id_idx").on(t.teamId)],
);

export const SCHEDULE_FIRE_STATUSES = ["claimed", "done", "failed"] as const;
export type ScheduleFireStatus = (typeof SCHEDULE_FIRE_STATUSES)[number];

/**
 * One row per fire of a schedule. The UNIQUE key is the claim: replicas insert ON CONFLICT DO NOTHING
 * and only the one whose row went in runs the fire, so each fire runs once however many replicas tick.
 */
export const scheduleFires = pgTable(
  "schedule_fires",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    scheduleId: integer("schedule_id")
      .notNull()
      .references(() => schedules.id, { onDelete: "cascade" }),
    fireAt: timestamp("fire_at", { withTimezone: true }).notNull(),
    claimedAt: timestamp("claimed_at", { withTimezone: true }).notNull().defaultNow(),
    status: text("status").$type<ScheduleFireStatus>().notNull().default("claimed"),
  },
  (t) => [
    unique("schedule_fires_schedule_id_fire_at_key").on(t.scheduleId, t.fireAt),
    check("schedule_fires_status_check", oneOf("status", SCHEDULE_FIRE_STATUSES)),
    index("schedule_fires_claimed_at_idx").on(t.claimedAt),
  ],
);

export const RUN_STEP_KINDS = ["model", "tool", "approval", "context", "note"] as const;
export type RunStepKind = (typeof RUN_STEP_KINDS)[number];

/**
 * The ordered steps of a run, appended as they finish: a model call (tokens, latency, finish reason,
 * format recovered), a tool call (redacted args, result preview, policy decision, approval and who
 * decided, duration, error), an approval wait, context trimming or a summary. `data` holds the
 * kind-specific fields (redacted); `seq` orders them within the run.
 */
export const runSteps = pgTable(
  "run_steps",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    runId: text("run_id").notNull(),
    seq: integer("seq").notNull(),
    /** The loop's step number (one model call and its tool calls share it). */
    step: integer("step").notNull().default(0),
    kind: text("kind").$type<RunStepKind>().notNull(),
    /** The model for a model call, the tool for a tool call. */
    name: text("name"),
    /** ok | error | denied | approved | rejected | expired | pending | trimmed … (kind-specific). */
    status: text("status"),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    durationMs: integer("duration_ms").notNull().default(0),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    costUsd: doublePrecision("cost_usd"),
    data: jsonb("data").$type<JsonValue>(),
  },
  (t) => [
    check("run_steps_kind_check", oneOf("kind", RUN_STEP_KINDS)),
    unique("run_steps_run_id_seq_key").on(t.runId, t.seq),
  ],
);

export const FEEDBACK_VALUES = ["up", "down"] as const;
export type FeedbackValueColumn = (typeof FEEDBACK_VALUES)[number];

/**
 * 👍/👎 on a run's answer: one row per person, the value they gave last; a click on that same value
 * takes the rating back and removes the row (src/store/feedback-store.ts).
 */
export const runFeedback = pgTable(
  "run_feedback",
  {
    runId: text("run_id").notNull(),
    userId: text("user_id").notNull(),
    value: text("value").$type<FeedbackValueColumn>().notNull(),
    channelId: text("channel_id"),
    messageTs: text("message_ts"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.runId, t.userId] }),
    check("run_feedback_value_check", oneOf("value", FEEDBACK_VALUES)),
    index("run_feedback_updated_at_idx").on(t.updatedAt),
  ],
);

export const BUDGET_SCOPES = ["user", "channel"] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

/**
 * Tokens per budget scope and UTC day. Before a model call its worst case is added to `reserved` by a
 * conditional UPDATE (only while used + reserved + n stays within the limit), so concurrent turns cannot
 * overshoot; after it the reservation is released and the real usage added to `used`.
 */
export const tokenUsage = pgTable(
  "token_usage",
  {
    scope: text("scope").$type<BudgetScope>().notNull(),
    scopeId: text("scope_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    used: bigint("used", { mode: "number" }).notNull().default(0),
    reserved: bigint("reserved", { mode: "number" }).notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.scope, t.scopeId, t.day] }),
    check("token_usage_scope_check", oneOf("scope", BUDGET_SCOPES)),
    check("token_usage_non_negative_check", sql`used >= 0 AND reserved >= 0`),
    index("token_usage_day_idx").on(t.day),
  ],
);

/**
 * A channel's agent profile (`/hermes profile set`, the App Home's modal): instructions added to the
 * system prompt, the only tools the channel's runs may call, the level people without one of their own
 * get there, the model (and fallback) its runs use, its daily token budget and whether answers stream.
 * `channel_id` "default" is the profile of every channel without its own. Kept per Slack team:
 * `team_id` '' is the workspace of the single bot token (docs/profiles.md).
 */
export const channelProfiles = pgTable(
  "channel_profiles",
  {
    teamId: text("team_id").notNull().default(""),
    channelId: text("channel_id").notNull(),
    instructions: text("instructions"),
    toolAllow: text("tool_allow").array(),
    level: text("level").$type<"viewer" | "user">(),
    model: text("model"),
    fallbackModel: text("fallback_model"),
    tokensPerDay: bigint("tokens_per_day", { mode: "number" }),
    streaming: boolean("streaming"),
    updatedBy: text("updated_by"),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.teamId, t.channelId] }),
    check("channel_profiles_level_check", sql`level IS NULL OR level IN ('viewer', 'user')`),
    check("channel_profiles_tokens_per_day_check", sql`tokens_per_day IS NULL OR tokens_per_day >= 0`),
  ],
);

/**
 * A channel's daily token budget, overriding HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY (set by /hermes
 * budget), per tenant (`core/tenant.ts`).
 */
export const channelBudgets = pgTable(
  "channel_budgets",
  {
    teamId: text("team_id").notNull().default(""),
    channelId: text("channel_id").notNull(),
    tokenBudgetPerDay: bigint("token_budget_per_day", { mode: "number" }).notNull(),
    updatedBy: text("updated_by"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ name: "channel_budgets_team_id_channel_id_pk", columns: [t.teamId, t.channelId] })],
);

/**
 * A Slack app installation made through OAuth (`slack/oauth/`): one workspace's (`team_id`), or an
 * Enterprise org's (`is_enterprise_install`, `team_id` null) serving every workspace of the org. The
 * tokens (bot and user, refresh tokens, their expiry) are in `secrets`, sealed with AES-256-GCM
 * (`slack/oauth/token-cipher.ts`; `key_id` names the key that sealed it); the rest is plain.
 */
export const slackInstallations = pgTable(
  "slack_installations",
  {
    /** `T:<team>` for a workspace install, `E:<enterprise>` for an org-wide one. */
    installKey: text("install_key").primaryKey(),
    enterpriseId: text("enterprise_id"),
    teamId: text("team_id"),
    isEnterpriseInstall: boolean("is_enterprise_install").notNull().default(false),
    appId: text("app_id"),
    botUserId: text("bot_user_id"),
    botId: text("bot_id"),
    teamName: text("team_name"),
    enterpriseName: text("enterprise_name"),
    installerUserId: text("installer_user_id"),
    botScopes: text("bot_scopes").array(),
    secrets: text("secrets").notNull(),
    keyId: text("key_id").notNull(),
    installedAt: timestamp("installed_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check(
      "slack_installations_scope_check",
      sql`(is_enterprise_install AND enterprise_id IS NOT NULL AND team_id IS NULL) OR (NOT is_enterprise_install AND team_id IS NOT NULL)`,
    ),
    index("slack_installations_enterprise_idx").on(t.enterpriseId),
  ],
);

/** The workspaces of an org-wide install seen in its events: a job naming only its team finds the org's token. */
export const slackInstallationTeams = pgTable("slack_installation_teams", {
  teamId: text("team_id").primaryKey(),
  enterpriseId: text("enterprise_id").notNull(),
  seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
});
