import { randomBytes } from "node:crypto";
import { z } from "zod";
import { HermesError, isHermesError } from "../errors.ts";
import { type AuditRow, auditRowColumns, auditRowHash, GENESIS_HASH, utcIso } from "./audit-chain.ts";
import {
  type AuditCheckpoint,
  type CheckpointResult,
  checkCheckpoint,
  signCheckpoint,
} from "./audit-checkpoint.ts";
import { createGroupCommit } from "./audit-group-commit.ts";
import { ARGS_MAC_PREFIX, type AuditKey, createAuditKey } from "./audit-key.ts";
import { type AuditPage, type AuditQuery, queryAudit } from "./audit-query.ts";
import { storableString, toStorableJson } from "./canonical-json.ts";
import type { Database, Transaction } from "./db.ts";
import { asc, desc, gt, sql } from "./drizzle.ts";
import { AUDIT_ACTIONS, auditLog } from "./schema.ts";

/** Transaction-level advisory lock that serializes audit writers across all connections and replicas. */
const AUDIT_LOCK_KEY = 0x4845524d_0002; // "HERM" + 2
const VERIFY_BATCH = 1000;

const optionalText = z
  .string()
  .nullish()
  .transform((v) => (v == null ? null : storableString(v)));

/** One audit event. `args` and `resultSummary` must already be redacted by the caller. */
export const auditEventSchema = z.object({
  action: z.enum(AUDIT_ACTIONS),
  tool: z.string().min(1).transform(storableString),
  userId: optionalText,
  actorId: optionalText,
  teamId: optionalText,
  channelId: optionalText,
  threadTs: optionalText,
  runId: optionalText,
  toolCallId: optionalText,
  approvalId: optionalText,
  args: z
    .unknown()
    .optional()
    .transform((v) => (v === undefined ? null : toStorableJson(v))),
  /**
   * The call's hash over its raw (unredacted) args, `argsSha256(tool, args)`: the writer stores its
   * keyed HMAC (`hmac-sha256:…`), never the hash itself, which a reader could brute-force for small
   * values (phone numbers, ids). A value that is already `hmac-sha256:…` (copied from an earlier
   * row of the same call) is stored as it is.
   */
  argsSha256: z
    .string()
    .regex(
      new RegExp(`^(${ARGS_MAC_PREFIX})?[0-9a-f]{64}$`),
      "must be a lower-case hex sha256 (or an hmac-sha256: value from another row)",
    )
    .nullish()
    .transform((v) => v ?? null),
  resultSummary: optionalText,
  error: optionalText,
  durationMs: z
    .number()
    .nonnegative()
    .nullish()
    .transform((v) => (v == null ? null : Math.round(v))),
});
export type AuditEvent = z.input<typeof auditEventSchema>;

export type VerifyResult =
  | { ok: true; rows: number; head: string }
  | { ok: false; rowId: number; reason: string };

export interface AuditHead {
  id: number;
  hash: string;
  createdAt: string;
}

export interface AuditLog {
  /**
   * Appends one hash-chained row. Pass `tx` to write it in the caller's transaction, so the state
   * change it records commits (or rolls back) with it; the chain lock is then held until that
   * transaction ends, so keep it short. Must be READ COMMITTED (the default).
   */
  append(event: AuditEvent, tx?: Transaction): Promise<AuditRow>;
  /** Walks the whole chain in id order; names the first row whose links or contents do not match. */
  verify(): Promise<VerifyResult>;
  /** The newest row's hash (anchor it outside the database to detect removal of the tail). */
  head(): Promise<AuditHead | null>;
  /** Newest first, keyset-paginated on (created_at, id); pass `nextCursor` back for the next page. */
  query(filter?: AuditQuery): Promise<AuditPage>;
  /** The head, signed with the audit key (publish it outside the database); null when empty. */
  checkpoint(at?: Date): Promise<AuditCheckpoint | null>;
  /** A published checkpoint's signature, and that its row is still there with the same hash. */
  checkCheckpoint(checkpoint: unknown): Promise<CheckpointResult>;
}

export interface AuditLogOptions {
  db: Database;
  /**
   * Keys `args_sha256` and signs checkpoints (`resolveAuditKey`). Absent: a random key for this
   * object only (tests, benchmarks): rows stay unguessable but cannot be checked against args later.
   */
  key?: AuditKey | undefined;
}

export function createAuditLog({ db, key: given }: AuditLogOptions): AuditLog {
  const key = given ?? createAuditKey(randomBytes(32));
  const keyed = (event: ParsedEvent): ParsedEvent => {
    const hash = event.argsSha256;
    return hash === null || hash.startsWith(ARGS_MAC_PREFIX)
      ? event
      : { ...event, argsSha256: key.argsMac(hash) };
  };
  // Appends outside a caller's transaction are written in batches, one transaction each.
  const grouped = createGroupCommit((events: ParsedEvent[]) => db.transaction((t) => appendRows(t, events)));
  return {
    async append(event, tx) {
      const parsed = auditEventSchema.safeParse(event);
      if (!parsed.success) {
        throw new HermesError("bad_request", `Invalid audit event: ${z.prettifyError(parsed.error)}`);
      }
      const data = keyed(parsed.data);
      try {
        if (tx) return (await appendRows(tx, [data]))[0]!;
        return await grouped(data);
      } catch (err) {
        if (isHermesError(err)) throw err;
        throw new HermesError(
          "storage_unavailable",
          "The audit log could not be written, so the action was not carried out. Try again shortly.",
          { cause: err },
        );
      }
    },

    async verify() {
      let prev = GENESIS_HASH;
      let prevId: number | undefined;
      let rows = 0;
      for (;;) {
        const batch = await db
          .select(auditRowColumns)
          .from(auditLog)
          .where(prevId === undefined ? undefined : gt(auditLog.id, prevId))
          .orderBy(asc(auditLog.id))
          .limit(VERIFY_BATCH);
        for (const row of batch) {
          if (row.prevHash !== prev) {
            const before = prevId === undefined ? "the chain start" : `row ${prevId}`;
            return {
              ok: false,
              rowId: row.id,
              reason: `prev_hash does not match the hash of ${before} (a row was removed, inserted or rewritten)`,
            };
          }
          if (auditRowHash(row) !== row.hash) {
            return {
              ok: false,
              rowId: row.id,
              reason: "hash does not match the row's contents (row changed)",
            };
          }
          prev = row.hash;
          prevId = row.id;
          rows++;
        }
        if (batch.length < VERIFY_BATCH) return { ok: true, rows, head: prev };
      }
    },

    head: () => readHead(db),

    query: (filter = {}) => queryAudit(db, filter),

    async checkpoint(at = new Date()) {
      const head = await readHead(db);
      return head ? signCheckpoint(key, head, at) : null;
    },

    checkCheckpoint: (checkpoint) => checkCheckpoint({ db, key }, checkpoint),
  };
}

async function readHead(db: Database): Promise<AuditHead | null> {
  const [row] = await db
    .select({ id: auditLog.id, hash: auditLog.hash, createdAt: utcIso(auditLog.createdAt) })
    .from(auditLog)
    .orderBy(desc(auditLog.id))
    .limit(1);
  return row ?? null;
}

type ParsedEvent = z.output<typeof auditEventSchema>;

/** Appends `events` in order, chained to the head and to each other, in `tx` (under the chain's lock). */
async function appendRows(tx: Database, events: ParsedEvent[]): Promise<AuditRow[]> {
  const lock = await tx.execute<{ iso: string }>(
    sql`SELECT pg_advisory_xact_lock(${sql.raw(String(AUDIT_LOCK_KEY))}) AS locked,
               current_setting('transaction_isolation') AS iso`,
  );
  // Under REPEATABLE READ the snapshot predates the lock, so the head read below could be stale.
  if (lock.rows[0]?.iso !== "read committed") {
    throw new HermesError(
      "storage_unavailable",
      "The audit log can only be written in a READ COMMITTED transaction.",
    );
  }
  // Under the lock: the head is final, and ids and timestamps increase along the chain.
  const next = await tx.execute<{ id: string | number; created_at: string; prev_hash: string | null }>(
    sql`SELECT n.id, n.created_at, (SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1) AS prev_hash
          FROM (SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) AS id,
                       ${utcIso(sql`clock_timestamp()`)} AS created_at
                  FROM generate_series(1, ${sql.raw(String(events.length))})) AS n`,
  );
  if (next.rows.length !== events.length) throw new Error("audit_log: nextval returned too few rows");
  // Ids and times, each in increasing order (both drawn under the lock), go to the events in order.
  const ids = next.rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  const times = next.rows.map((r) => r.created_at).sort();
  let prevHash = next.rows[0]?.prev_hash ?? GENESIS_HASH;
  const rows = events.map((event, i): AuditRow => {
    const unhashed: Omit<AuditRow, "hash"> = { id: ids[i]!, createdAt: times[i]!, ...event, prevHash };
    const row: AuditRow = { ...unhashed, hash: auditRowHash(unhashed) };
    prevHash = row.hash;
    return row;
  });
  await tx.execute(insertRows(rows));
  return rows;
}

/**
 * The rows as one parameter (a JSON array read by `jsonb_to_recordset`): the statement is the same
 * text whatever the rows hold, and costs no query building per row (an append runs twice a turn).
 */
function insertRows(rows: AuditRow[]) {
  const records = rows.map((r) => ({
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
  }));
  return sql`
    INSERT INTO ${auditLog} (id, created_at, action, tool, user_id, team_id, channel_id, thread_ts,
      run_id, tool_call_id, approval_id, actor_id, args, args_sha256, result_summary, error,
      duration_ms, prev_hash, hash)
    SELECT id, created_at, action, tool, user_id, team_id, channel_id, thread_ts, run_id,
      tool_call_id, approval_id, actor_id, args, args_sha256, result_summary, error, duration_ms,
      prev_hash, hash
    FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS x(id bigint, created_at timestamptz,
      action text, tool text, user_id text, team_id text, channel_id text, thread_ts text, run_id text,
      tool_call_id text, approval_id text, actor_id text, args jsonb, args_sha256 text,
      result_summary text, error text, duration_ms integer, prev_hash text, hash text)`;
}
