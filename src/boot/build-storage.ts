import { type Config, redisTargetOf } from "../config.ts";
import type { Logger } from "../core/logger.ts";
import type { Metrics } from "../core/metrics.ts";
import { openRedis, queueKeyPrefix } from "../core/redis-target.ts";
import { createApprovalStore } from "../policy/approval-store.ts";
import { createRedactor } from "../policy/redact.ts";
import { createBullmqTurnQueue } from "../queue/bullmq-turn-queue.ts";
import { createMemoryTurnQueue } from "../queue/memory-turn-queue.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import { createScheduleStore } from "../schedules/schedule-store.ts";
import type { Storage } from "../storage.ts";
import { type AuditLog, createAuditLog } from "../store/audit.ts";
import { resolveAuditKey } from "../store/audit-key.ts";
import { warnAboutAuditRole } from "../store/audit-role-check.ts";
import { createBudgetStore } from "../store/budget-store.ts";
import { openDatabase } from "../store/db.ts";
import { createEventDedupe } from "../store/event-dedupe.ts";
import { createFeedbackStore } from "../store/feedback-store.ts";
import { createMemorySessionStore } from "../store/memory-session-store.ts";
import { migrate } from "../store/migrate.ts";
import { createRedisSessionStore } from "../store/redis-session-store.ts";
import { createRunQuery } from "../store/run-query.ts";
import { createRunRecordStore } from "../store/run-record-store.ts";
import { createRunStore } from "../store/run-store.ts";
import type { SessionStore } from "../store/session-store.ts";
import { createUserStore } from "../store/user-store.ts";
import { createPgResultStore } from "../tools/pg-result-store.ts";

/**
 * Postgres (or embedded PGlite) with pending migrations applied, every store on it, and sessions +
 * queue on Redis when `REDIS_URL` is set (in-process otherwise: one process only).
 */
export async function buildStorage(
  config: Config,
  logger: Logger,
  /** The process's redactor (configured secret values), for approval audit rows. */
  options: { redact?: (value: unknown) => unknown; metrics?: Metrics } = {},
) {
  const env = config.env;
  // Before anything opens: a production setup without its key refuses to start, saying why.
  const key = resolveAuditKey({
    configured: env.HERMES_AUDIT_KEY,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.HERMES_DATA_DIR,
    logger,
  });
  const handle = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.HERMES_DATA_DIR,
    logger,
    maxConnections: env.HERMES_PG_POOL,
    preparedStatements: env.HERMES_PG_PREPARE === "on",
    // Embedded: this process owns the data dir; a second server refuses, the CLIs come through it.
    owner: { role: "server", command: "npm start" },
  });
  const migrated = await migrate(handle);
  if (migrated.applied > 0) logger.info({ applied: migrated.applied, db: handle.kind }, "database migrated");
  await warnAboutAuditRole(handle, logger).catch((err: unknown) =>
    logger.warn({ err: String(err) }, "could not check the database role's rights on audit_log"),
  );
  const db = handle.db;
  const audit = timedAppends(
    createAuditLog({ db, key, pool: handle.kind === "postgres" ? handle.pool : undefined }),
    options.metrics,
  );
  const redisTarget = redisTargetOf(env);
  const redis = redisTarget
    ? openRedis(redisTarget, { maxRetriesPerRequest: 2, lazyConnect: false })
    : undefined;
  redis?.on("error", (err) => logger.warn({ err: err.message }, "redis error"));
  const sessions: SessionStore = redis
    ? createRedisSessionStore({
        redis,
        // Same namespace as the queue: deployments (and tests) sharing a Redis must not share threads.
        keyPrefix: `${env.HERMES_REDIS_PREFIX}:`,
        ttlSeconds: env.HERMES_SESSION_TTL_SECONDS,
        logger,
      })
    : createMemorySessionStore({ ttlSeconds: env.HERMES_SESSION_TTL_SECONDS });
  const queue: TurnQueue = redisTarget
    ? createBullmqTurnQueue({
        redis: redisTarget,
        logger,
        prefix: queueKeyPrefix(env.HERMES_REDIS_PREFIX, redisTarget.cluster),
        lockDurationMs: env.HERMES_QUEUE_LOCK_SECONDS * 1000,
        stalledIntervalMs: env.HERMES_QUEUE_LOCK_SECONDS * 500,
      })
    : createMemoryTurnQueue({ logger });
  return {
    handle,
    audit,
    approvals: createApprovalStore({
      db,
      audit,
      ttlSeconds: env.HERMES_APPROVAL_TTL_SECONDS,
      redact: options.redact,
    }),
    runs: createRunStore({ db }),
    runQuery: createRunQuery({ db }),
    runRecords: createRunRecordStore({ db, redact: options.redact ?? createRedactor().redact }),
    events: createEventDedupe({ db }),
    users: createUserStore({ db }),
    feedback: createFeedbackStore({ db, audit }),
    budgets: createBudgetStore({
      db,
      audit,
      defaults: {
        userTokensPerDay: env.HERMES_BUDGET_USER_TOKENS_PER_DAY,
        channelTokensPerDay: env.HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY,
      },
    }),
    results: createPgResultStore({ db }),
    schedules: createScheduleStore({ db }),
    sessions,
    queue,
    redis,
    async close() {
      await sessions.close().catch(() => undefined);
      redis?.disconnect();
      await handle.close();
    },
  };
}

/** `audit` whose appends are timed for `/metrics` (as their callers wait for them). */
function timedAppends(audit: AuditLog, metrics: Metrics | undefined): AuditLog {
  if (!metrics) return audit;
  return {
    ...audit,
    async append(event, tx) {
      const started = performance.now();
      try {
        return await audit.append(event, tx);
      } finally {
        metrics.auditAppend((performance.now() - started) / 1000);
      }
    },
  };
}

/** The stores as opened, with the handles only the composition root uses (Redis, the raw queue, `close`). */
export type BuiltStorage = Awaited<ReturnType<typeof buildStorage>>;

/** The stores handlers and workers use, out of what `buildStorage` opened. */
export function storesOf(built: BuiltStorage): Storage {
  return {
    db: built.handle,
    audit: built.audit,
    approvals: built.approvals,
    runs: built.runs,
    runQuery: built.runQuery,
    runRecords: built.runRecords,
    events: built.events,
    users: built.users,
    sessions: built.sessions,
    feedback: built.feedback,
  };
}
