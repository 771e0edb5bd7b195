import { type SQL, sql } from "drizzle-orm";
import type { Database } from "./db.ts";

/** Rows deleted per statement: each batch is a short transaction, so a big table is never locked long. */
export const DEFAULT_RETENTION_BATCH = 1000;

export interface RetentionOptions {
  db: Database;
  /** Rows older than this many days go (`HERMES_RETENTION_DAYS`); 0 keeps everything. */
  days: number;
  batchSize?: number;
  /** Stops between batches (shutdown). */
  signal?: AbortSignal;
}

export type RetentionCounts = Record<"results" | "slack_events" | "schedule_fires" | "runs", number>;

/**
 * What may go, per table: only finished rows past the cutoff. Never `audit_log` (append-only, and
 * its triggers refuse), never a Slack event or schedule fire still in progress, never a run that is
 * running or paused, nor a full result its paused or running run may still fetch.
 */
const SWEEPS: Array<{ table: keyof RetentionCounts; key: string; expired: (cutoff: SQL) => SQL }> = [
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
    expired: (cutoff) => sql`status IN ('completed', 'failed', 'stopped') AND updated_at < ${cutoff}`,
  },
];

/**
 * Deletes what is older than the retention period, in batches of `batchSize` rows by primary key
 * (each its own statement), until nothing old is left. Same SQL on Postgres and PGlite.
 */
export async function sweepRetention(options: RetentionOptions): Promise<RetentionCounts> {
  const counts: RetentionCounts = { results: 0, slack_events: 0, schedule_fires: 0, runs: 0 };
  if (!(options.days > 0)) return counts;
  const batch = options.batchSize ?? DEFAULT_RETENTION_BATCH;
  const cutoff = sql`now() - make_interval(days => ${options.days})`;
  for (const { table, key, expired } of SWEEPS) {
    const t = sql.identifier(table);
    const k = sql.identifier(key);
    for (;;) {
      if (options.signal?.aborted) return counts;
      const deleted = await options.db.execute<{ n: number }>(sql`
        WITH gone AS (
          DELETE FROM ${t} WHERE ${k} IN (SELECT ${k} FROM ${t} WHERE ${expired(cutoff)} LIMIT ${batch})
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM gone`);
      const n = Number(deleted.rows[0]?.n ?? 0);
      counts[table] += n;
      if (n < batch) break;
      // Let other work (the turn in progress) use the connection between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return counts;
}
