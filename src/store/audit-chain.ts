import { canonicalJson, type JsonValue, sha256Hex } from "../core/canonical-json.ts";
import { type SQL, sql } from "./drizzle.ts";
import { type AuditAction, auditLog } from "./schema.ts";

/** `prev_hash` of the first row. */
export const GENESIS_HASH = "0".repeat(64);

/** One audit_log row as stored. `createdAt` is UTC ISO 8601 with microseconds, exactly as hashed. */
export interface AuditRow {
  id: number;
  createdAt: string;
  action: AuditAction;
  tool: string;
  userId: string | null;
  teamId: string | null;
  channelId: string | null;
  threadTs: string | null;
  runId: string | null;
  toolCallId: string | null;
  approvalId: string | null;
  actorId: string | null;
  args: JsonValue | null;
  argsSha256: string | null;
  resultSummary: string | null;
  error: string | null;
  durationMs: number | null;
  prevHash: string;
  hash: string;
}

/**
 * The hash recipe, reproducible outside Hermes from SQL alone:
 * `hash = sha256_hex(prev_hash || canonical_json(row))`, where `row` has every column except `hash`
 * under its column name, `created_at` as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds), absent
 * values as `null`, and canonical JSON is sorted keys without whitespace (RFC 8785).
 */
export function auditRowHash(row: Omit<AuditRow, "hash">): string {
  const fields = {
    id: row.id,
    created_at: row.createdAt,
    action: row.action,
    tool: row.tool,
    user_id: row.userId,
    team_id: row.teamId,
    channel_id: row.channelId,
    thread_ts: row.threadTs,
    run_id: row.runId,
    tool_call_id: row.toolCallId,
    approval_id: row.approvalId,
    actor_id: row.actorId,
    args: row.args,
    args_sha256: row.argsSha256,
    result_summary: row.resultSummary,
    error: row.error,
    duration_ms: row.durationMs,
    prev_hash: row.prevHash,
  };
  return sha256Hex(row.prevHash + canonicalJson(fields));
}

/**
 * The row's canonical JSON (what `auditRowHash` hashes after `prev_hash`) in the four pieces around
 * the three values an append only knows under the chain's lock: `created_at`, `id` and `prev_hash`
 * (twice: before the JSON and inside it). `hermes_audit_append` (drizzle/0010) joins them as
 * `prev || before_created_at || created_at || before_id || id || before_prev_hash || prev ||
 * after_prev_hash`. Canonical JSON sorts keys, and every column is present, so the pieces are fixed:
 * the keys before `created_at`, then `duration_ms` and `error`, then `id`, `prev_hash`, and the rest.
 */
export interface HashPieces {
  before_created_at: string;
  before_id: string;
  before_prev_hash: string;
  after_prev_hash: string;
}

export function hashPieces(row: Omit<AuditRow, "id" | "createdAt" | "prevHash" | "hash">): HashPieces {
  const head = canonicalJson({
    action: row.action,
    actor_id: row.actorId,
    approval_id: row.approvalId,
    args: row.args,
    args_sha256: row.argsSha256,
    channel_id: row.channelId,
  });
  const tail = canonicalJson({
    result_summary: row.resultSummary,
    run_id: row.runId,
    team_id: row.teamId,
    thread_ts: row.threadTs,
    tool: row.tool,
    tool_call_id: row.toolCallId,
    user_id: row.userId,
  });
  return {
    before_created_at: `${head.slice(0, -1)},"created_at":"`,
    before_id: `","duration_ms":${canonicalJson(row.durationMs)},"error":${canonicalJson(row.error)},"id":`,
    before_prev_hash: ',"prev_hash":"',
    after_prev_hash: `",${tail.slice(1)}`,
  };
}

/** `to_char`'s pattern for a timestamp's hashed text (microseconds, UTC, ISO 8601). */
export const UTC_ISO_PATTERN = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** A timestamptz as the exact text that is hashed: same output on Postgres and PGlite. */
export function utcIso(value: SQL | typeof auditLog.createdAt): SQL<string> {
  return sql<string>`to_char(${value} AT TIME ZONE 'UTC', ${sql.raw(UTC_ISO_PATTERN)})`;
}

/** Select list giving an `AuditRow` (drizzle would otherwise return the driver's timestamp text). */
export const auditRowColumns = {
  id: auditLog.id,
  createdAt: utcIso(auditLog.createdAt),
  action: auditLog.action,
  tool: auditLog.tool,
  userId: auditLog.userId,
  teamId: auditLog.teamId,
  channelId: auditLog.channelId,
  threadTs: auditLog.threadTs,
  runId: auditLog.runId,
  toolCallId: auditLog.toolCallId,
  approvalId: auditLog.approvalId,
  actorId: auditLog.actorId,
  args: auditLog.args,
  argsSha256: auditLog.argsSha256,
  resultSummary: auditLog.resultSummary,
  error: auditLog.error,
  durationMs: auditLog.durationMs,
  prevHash: auditLog.prevHash,
  hash: auditLog.hash,
};
