import type pg from "pg";
import { HermesError } from "../core/errors.ts";
import { type AuditRow, hashPieces } from "./audit-chain.ts";
import type { Database } from "./db.ts";
import { sql } from "./drizzle.ts";

/**
 * Appending to the hash chains is one statement, `hermes_audit_append` (drizzle/0015, after 0010):
 * the rows of one call belong to one team's chain (`coalesce(team_id, '')`, `audit-chains.ts`; a call
 * naming two teams is refused, so callers batch per team). Under that chain's lock it reads the
 * chain's head, draws each row's id and time, hashes it (the recipe of `auditRowHash`, from the
 * pieces `hashPieces` cut) and inserts it. One round trip, in the caller's transaction (`appendRows`:
 * the lock is then held until it ends) or on its own (`appendOnPool`: the statement is its own
 * transaction, so the lock is released, and a failure rolled back, when it returns). The function
 * refuses any isolation but READ COMMITTED.
 */

/**
 * Transaction-level advisory lock of the '' chain (rows without a team, and every row from before
 * chains were per team): it serializes that chain's writers across all connections and replicas.
 * Every other chain's key is `hermes_audit_lock_key(team)` in SQL (a 64-bit hash of the team), so
 * two teams append at the same time.
 */
export const AUDIT_LOCK_KEY = 0x4845524d_0002; // "HERM" + 2

/** An event as it is chained: everything of a row but its place in the chain. */
export type ChainedEvent = Omit<AuditRow, "id" | "createdAt" | "prevHash" | "hash">;

/** The rows go as one parameter: the statement's text is the same whatever they hold (a named statement). */
const APPEND_FROM = "SELECT row_id, row_created_at, row_prev_hash, row_hash FROM hermes_audit_append";
const APPEND_ON_POOL = `${APPEND_FROM}($1::jsonb)`;

type AppendedRow = {
  row_id: string | number;
  row_created_at: string;
  row_prev_hash: string;
  row_hash: string;
};

/** Appends `events` in order, chained to the head and to each other, in `tx` (READ COMMITTED). */
export async function appendRows(tx: Database, events: ChainedEvent[]): Promise<AuditRow[]> {
  const result = await tx.execute<AppendedRow>(sql`${sql.raw(APPEND_FROM)}(${eventsJson(events)}::jsonb)`);
  return chained(events, result.rows);
}

/** The same as a statement of its own on a pooled Postgres connection: one round trip. */
export async function appendOnPool(pool: pg.Pool, events: ChainedEvent[]): Promise<AuditRow[]> {
  const result = await pool.query<AppendedRow>(APPEND_ON_POOL, [eventsJson(events)]);
  return chained(events, result.rows);
}

function chained(events: ChainedEvent[], rows: AppendedRow[]): AuditRow[] {
  if (rows.length !== events.length) {
    throw new HermesError("storage_unavailable", "The audit log did not take every row it was given.");
  }
  return events.map((event, i) => {
    const r = rows[i]!;
    return {
      id: Number(r.row_id),
      createdAt: r.row_created_at,
      ...event,
      prevHash: r.row_prev_hash,
      hash: r.row_hash,
    };
  });
}

function eventsJson(events: ChainedEvent[]): string {
  return JSON.stringify(
    events.map((e) => ({
      ...hashPieces(e),
      row: {
        action: e.action,
        tool: e.tool,
        user_id: e.userId,
        team_id: e.teamId,
        channel_id: e.channelId,
        thread_ts: e.threadTs,
        run_id: e.runId,
        tool_call_id: e.toolCallId,
        approval_id: e.approvalId,
        actor_id: e.actorId,
        args: e.args,
        args_sha256: e.argsSha256,
        result_summary: e.resultSummary,
        error: e.error,
        duration_ms: e.durationMs,
      },
    })),
  );
}
