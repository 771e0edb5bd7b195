import type { Database } from "./db.ts";
import { type SQL, sql } from "./drizzle.ts";

/** Rows deleted per statement: each batch is a short transaction, so a big table is never locked long. */
export const DEFAULT_RETENTION_BATCH = 1000;

export interface RetentionOptions {
  db: Database;
  /** Rows older than this many days go (`HERMES_RETENTION_DAYS`); 0 keeps everything. */
  days: number;
  /**
   * Finished runs' records (`runs` with their `run_steps` and `run_feedback`) older than this many
   * days go (`HERMES_RUN_RETENTION_DAYS`); 0 keeps them; absent: `days`.
   */
  runDays?: number | undefined;
  batchSize?: number;
  /** Stops between batches (shutdown). */
  signal?: AbortSignal;
}

export type RetentionCounts = Record<
  "results" | "slack_events" | "schedule_fires" | "runs" | "run_steps" | "run_feedback",
  number
>;
type SweptTable = Exclude<keyof RetentionCounts, "run_steps" | "run_feedback">;

/**
 * What may go, per table: only finished rows past the cutoff. Never `audit_log` (append-only, and
 * its triggers refuse), never a Slack event or schedule fire still in progress, never a run that is
 * running or paused, nor a full result its paused or running run may still fetch.
 */
const SWEEPS: Array<{ table: SweptTable; key: string; expired: (cutoff: SQL) => SQL }> = [
  {
    table: "results",
    key: "id",
    expired: (cutoff) => sql`created_at < ${cutoff}
      AND NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = results.run_id AND runs.status IN ('running', 'paused'))`,
  },
  {
    table: "slack_events",
    key: "event_id",
    expired: (cutoff) => sql`status IN ('done', 'failed') AND coalesce(finished_at, received_at) < ${cutoff}`,
  },
  {
    table: "schedule_fires",
    key: "id",
    expired: (cutoff) => sql`status IN ('done', 'failed') AND claimed_at < ${cutoff}`,
  },
  {
    table: "runs",
    key: "id",
    expired: (cutoff) =>
      sql`status IN ('completed', 'failed', 'stopped') AND coalesce(finished_at, updated_at) < ${cutoff}`,
  },
];

/**
 * Deletes what is older than the retention period, in batches of `batchSize` rows by primary key
 * (each its own statement), until nothing old is left. Same SQL on Postgres and PGlite.
 */
export async function sweepRetention(options: RetentionOptions): Promise<RetentionCounts> {
  const counts: RetentionCounts = {
    results: 0,
    slack_events: 0,
    schedule_fires: 0,
    runs: 0,
    run_steps: 0,
    run_feedback: 0,
  };
  const batch = options.batchSize ?? DEFAULT_RETENTION_BATCH;
  for (const { table, key, expired } of SWEEPS) {
    const days = table === "runs" ? (options.runDays ?? options.days) : options.days;
    if (!(days > 0)) continue;
    const cutoff = sql`now() - make_interval(days => ${days})`;
    const t = sql.identifier(table);
    const k = sql.identifier(key);
    for (;;) {
      if (options.signal?.aborted) return counts;
      // A run goes with its timeline and its feedback, in the same statement.
      const deleted = await options.db.execute<{ n: number; steps: number; feedback: number }>(sql`
        WITH gone AS (
          DELETE FROM ${t} WHERE ${k} IN (SELECT ${k} FROM ${t} WHERE ${expired(cutoff)} LIMIT ${batch})
          RETURNING ${k} AS key
        )${
          table === "runs"
            ? sql`, steps AS (DELETE FROM run_steps WHERE run_id IN (SELECT key FROM gone) RETURNING 1),
              feedback AS (DELETE FROM run_feedback WHERE run_id IN (SELECT key FROM gone) RETURNING 1)
              SELECT (SELECT count(*) FROM gone)::int AS n, (SELECT count(*) FROM steps)::int AS steps,
                (SELECT count(*) FROM feedback)::int AS feedback`
            : sql` SELECT count(*)::int AS n, 0 AS steps, 0 AS feedback FROM gone`
        }`);
      const n = Number(deleted.rows[0]?.n ?? 0);
      counts[table] += n;
      counts.run_steps += Number(deleted.rows[0]?.steps ?? 0);
      counts.run_feedback += Number(deleted.rows[0]?.feedback ?? 0);
      if (n < batch) break;
      // Let other work (the turn in progress) use the connection between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return counts;
}
