import type pg from "pg";
import { HermesError } from "../errors.ts";
import { type AuditRow, auditRowHash, GENESIS_HASH, UTC_ISO_PATTERN } from "./audit-chain.ts";
import type { Database } from "./db.ts";
import { sql } from "./drizzle.ts";

/**
 * Appending to the hash chain: under the chain's lock, read the head, chain the new rows to it and
 * insert them, all in one READ COMMITTED transaction. Either in a transaction the caller holds
 * (`appendRows`, drizzle), or in one of its own on Postgres (`appendInOwnTransaction`, the group
 * commit's), in two round trips: BEGIN, the lock and the head read; then the insert and COMMIT.
 */

/** Transaction-level advisory lock that serializes audit writers across all connections and replicas. */
export const AUDIT_LOCK_KEY = 0x4845524d_0002; // "HERM" + 2

/** An event as it is chained: everything of a row but its place in the chain. */
export type ChainedEvent = Omit<AuditRow, "id" | "createdAt" | "prevHash" | "hash">;

/** Takes the chain's lock; also reads the isolation level, which must be READ COMMITTED (below). */
const LOCK_SQL = `SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY}) AS locked, current_setting('transaction_isolation') AS iso`;

/**
 * `count` new ids and times, and the chain's head. It must be a statement of its own after the lock:
 * READ COMMITTED takes a snapshot per statement, so this one sees every row committed before the
 * lock was granted (in the lock's statement, the head could be stale).
 */
const nextSql = (count: number) =>
  `SELECT n.id, n.created_at, (SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1) AS prev_hash
     FROM (SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) AS id,
                  to_char(clock_timestamp() AT TIME ZONE 'UTC', ${UTC_ISO_PATTERN}) AS created_at
             FROM generate_series(1, ${Math.trunc(count)})) AS n`;

type NextRow = {
  id: string | number;
  created_at: string;
  prev_hash: string | null;
};

/**
 * The rows as one parameter (a JSON array read by `jsonb_to_recordset`): the statement is the same
 * text whatever the rows hold, and costs no query building per row (an append runs twice a turn).
 */
const INSERT_BEFORE_ROWS = `
    INSERT INTO audit_log (id, created_at, action, tool, user_id, team_id, channel_id, thread_ts,
      run_id, tool_call_id, approval_id, actor_id, args, args_sha256, result_summary, error,
      duration_ms, prev_hash, hash)
    SELECT id, created_at, action, tool, user_id, team_id, channel_id, thread_ts, run_id,
      tool_call_id, approval_id, actor_id, args, args_sha256, result_summary, error, duration_ms,
      prev_hash, hash
    FROM jsonb_to_recordset(`;
const INSERT_AFTER_ROWS = `::jsonb) AS x(id bigint, created_at timestamptz,
      action text, tool text, user_id text, team_id text, channel_id text, thread_ts text, run_id text,
      tool_call_id text, approval_id text, actor_id text, args jsonb, args_sha256 text,
      result_summary text, error text, duration_ms integer, prev_hash text, hash text)`;

/** Appends `events` in order, chained to the head and to each other, in `tx` (READ COMMITTED). */
export async function appendRows(tx: Database, events: ChainedEvent[]): Promise<AuditRow[]> {
  const lock = await tx.execute<{ iso: string }>(sql.raw(LOCK_SQL));
  assertReadCommitted(lock.rows[0]?.iso);
  const next = await tx.execute<NextRow>(sql.raw(nextSql(events.length)));
  const rows = chainRows(events, next.rows);
  await tx.execute(sql`${sql.raw(INSERT_BEFORE_ROWS)}${rowsJson(rows)}${sql.raw(INSERT_AFTER_ROWS)}`);
  return rows;
}

/**
 * The same in a transaction of its own on a pooled Postgres connection, in two round trips instead
 * of five: BEGIN, the lock and the head read are one simple-protocol query of three statements (each
 * still its own statement, with its own snapshot), then the insert and COMMIT are another. On any
 * failure the transaction is rolled back; a connection that cannot even roll back is discarded.
 */
export async function appendInOwnTransaction(pool: pg.Pool, events: ChainedEvent[]): Promise<AuditRow[]> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const results = (await client.query(
      `BEGIN; ${LOCK_SQL}; ${nextSql(events.length)}`,
    )) as unknown as pg.QueryResult[];
    if (!Array.isArray(results) || results.length !== 3)
      throw new Error("audit_log: the lock and head query did not return three results");
    assertReadCommitted((results[1]!.rows[0] as { iso?: string } | undefined)?.iso);
    const rows = chainRows(events, results[2]!.rows as NextRow[]);
    // The insert and COMMIT as one simple-protocol query (which takes no parameters, so the rows go
    // as one quoted literal: pg's `escapeLiteral`, which doubles quotes and backslashes). If the insert
    // fails, the server skips the COMMIT and the catch below rolls back.
    await client.query(
      `${INSERT_BEFORE_ROWS}${client.escapeLiteral(rowsJson(rows))}${INSERT_AFTER_ROWS}; COMMIT`,
    );
    return rows;
  } catch (err) {
    await client.query("ROLLBACK").catch((rollbackErr: unknown) => {
      broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

// Under REPEATABLE READ the transaction's snapshot predates the lock, so the head read could be stale.
function assertReadCommitted(iso: string | undefined) {
  if (iso !== "read committed") {
    throw new HermesError(
      "storage_unavailable",
      "The audit log can only be written in a READ COMMITTED transaction.",
    );
  }
}

/** Ids and times (both drawn under the lock, each in increasing order) go to the events in order. */
function chainRows(events: ChainedEvent[], next: NextRow[]): AuditRow[] {
  if (next.length !== events.length) throw new Error("audit_log: nextval returned too few rows");
  const ids = next.map((r) => Number(r.id)).sort((a, b) => a - b);
  const times = next.map((r) => r.created_at).sort();
  let prevHash = next[0]?.prev_hash ?? GENESIS_HASH;
  return events.map((event, i): AuditRow => {
    const unhashed: Omit<AuditRow, "hash"> = { id: ids[i]!, createdAt: times[i]!, ...event, prevHash };
    const row: AuditRow = { ...unhashed, hash: auditRowHash(unhashed) };
    prevHash = row.hash;
    return row;
  });
}

function rowsJson(rows: AuditRow[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      created_at: r.createdAt,
      action: r.action,
      tool: r.tool,
      user_id: r.userId,
      team_id: r.teamId,
      channel_id: r.channelId,
      thread_ts: r.threadTs,
      run_id: r.runId,
      tool_call_id: r.toolCallId,
      approval_id: r.approvalId,
      actor_id: r.actorId,
      args: r.args,
      args_sha256: r.argsSha256,
      result_summary: r.resultSummary,
      error: r.error,
      duration_ms: r.durationMs,
      prev_hash: r.prevHash,
      hash: r.hash,
    })),
  );
}
