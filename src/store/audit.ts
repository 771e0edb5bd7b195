import { randomBytes } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { ARGS_MAC_PREFIX } from "../core/args-hash.ts";
import { storableString, toStorableJson } from "../core/canonical-json.ts";
import { HermesError, isHermesError } from "../core/errors.ts";
import { appendOnPool, appendRows } from "./audit-append.ts";
import { type AuditRow, auditRowColumns, auditRowHash, GENESIS_HASH, utcIso } from "./audit-chain.ts";
import {
  type AuditCheckpoint,
  type CheckpointResult,
  checkCheckpoint,
  signCheckpoint,
} from "./audit-checkpoint.ts";
import { createGroupCommit } from "./audit-group-commit.ts";
import { type AuditKey, createAuditKey } from "./audit-key.ts";
import { type AuditPage, type AuditQuery, queryAudit } from "./audit-query.ts";
import type { Database, Transaction } from "./db.ts";
import { asc, desc, gt } from "./drizzle.ts";
import { AUDIT_ACTIONS, auditLog } from "./schema.ts";

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
  /**
   * The keyed form of a call hash (`argsSha256(tool, args)`), exactly as `args_sha256` stores it:
   * what approvals and paused runs bind a call with, so no table holds the guessable plain hash.
   */
  argsMac(callSha256: string): string;
}

export interface AuditLogOptions {
  db: Database;
  /**
   * The Postgres pool behind `db`, when it is Postgres: appends outside a caller's transaction then
   * are then one statement of their own (`appendOnPool`).
   */
  pool?: pg.Pool | undefined;
  /**
   * Keys `args_sha256` and signs checkpoints (`resolveAuditKey`). Absent: a random key for this
   * object only (tests, benchmarks): rows stay unguessable but cannot be checked against args later.
   */
  key?: AuditKey | undefined;
}

export function createAuditLog({ db, pool, key: given }: AuditLogOptions): AuditLog {
  const key = given ?? createAuditKey(randomBytes(32));
  const keyed = (event: ParsedEvent): ParsedEvent => {
    const hash = event.argsSha256;
    return hash === null || hash.startsWith(ARGS_MAC_PREFIX)
      ? event
      : { ...event, argsSha256: key.argsMac(hash) };
  };
  // Appends outside a caller's transaction are written in batches, one transaction each.
  const grouped = createGroupCommit((events: ParsedEvent[]) =>
    pool ? appendOnPool(pool, events) : appendRows(db, events),
  );
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

    argsMac: (callSha256) => key.argsMac(callSha256),
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
