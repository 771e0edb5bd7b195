import type { Database } from "./db.ts";
import { type SQL, sql } from "./drizzle.ts";
import { DEFAULT_RETENTION_BATCH } from "./retention.ts";

export interface StoredCallsRetention {
  db: Database;
  /** `HERMES_RETENTION_DAYS`; 0 keeps everything. */
  days: number;
  batchSize?: number;
  /** Stops between batches (shutdown). */
  signal?: AbortSignal;
}

export type StoredCallsCounts = Record<"approvals" | "run_snapshots", number>;

/** No run that may still read this approval's decision (a paused one, or one resuming right now). */
const runSettled = sql`NOT EXISTS (SELECT 1 FROM runs WHERE runs.id = approvals.run_id
  AND runs.status IN ('running', 'paused'))`;

/**
 * What is kept of the calls people asked about, past the retention period: decided and expired
 * approvals go (never a pending one, nor one whose run is paused or running); a finished run's
 * snapshot loses even its final answer (`finishedSnapshot` kept it), leaving the run's identity and
 * counters for its record until `HERMES_RUN_RETENTION_DAYS` removes the run. In batches by primary
 * key, each its own statement; a second sweep finds nothing. Never the audit log.
 */
export async function sweepStoredCalls(options: StoredCallsRetention): Promise<StoredCallsCounts> {
  const counts: StoredCallsCounts = { approvals: 0, run_snapshots: 0 };
  if (!(options.days > 0)) return counts;
  const batch = options.batchSize ?? DEFAULT_RETENTION_BATCH;
  const cutoff = sql`now() - make_interval(days => ${options.days})`;
  const statements: Array<[keyof StoredCallsCounts, SQL]> = [
    [
      "approvals",
      sql`WITH done AS (DELETE FROM approvals WHERE id IN (
        SELECT id FROM approvals
        WHERE status IN ('approved', 'rejected', 'expired') AND coalesce(decided_at, expires_at) < ${cutoff}
          AND ${runSettled}
        LIMIT ${batch}) RETURNING 1) SELECT count(*)::int AS n FROM done`,
    ],
    [
      "run_snapshots",
      sql`WITH done AS (UPDATE runs SET snapshot = (snapshot - 'messages' - 'pending')
          || jsonb_build_object('messages', '[]'::jsonb, 'pending', '[]'::jsonb)
        WHERE id IN (
          SELECT id FROM runs
          WHERE status IN ('completed', 'failed', 'stopped') AND coalesce(finished_at, updated_at) < ${cutoff}
            AND jsonb_typeof(snapshot) = 'object'
            AND (coalesce(snapshot->'messages', '[]'::jsonb) <> '[]'::jsonb
              OR coalesce(snapshot->'pending', '[]'::jsonb) <> '[]'::jsonb)
          LIMIT ${batch}) RETURNING 1) SELECT count(*)::int AS n FROM done`,
    ],
  ];
  for (const [name, statement] of statements) {
    for (;;) {
      if (options.signal?.aborted) return counts;
      const n = Number((await options.db.execute<{ n: number }>(statement)).rows[0]?.n ?? 0);
      counts[name] += n;
      if (n < batch) break;
      // Let other work (the turn in progress) use the connection between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return counts;
}
