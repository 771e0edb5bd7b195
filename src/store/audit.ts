import { randomBytes } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { ARGS_MAC_PREFIX } from "../core/args-hash.ts";
import { storableString, toStorableJson } from "../core/canonical-json.ts";
import { HermesError, isHermesError } from "../core/errors.ts";
import { type TenantKey, tenantKey } from "../core/tenant.ts";
import { appendOnPool, appendRows } from "./audit-append.ts";
import { type AuditRow, GENESIS_HASH } from "./audit-chain.ts";
import { type AuditHead, listChains, readHead, verifyChain } from "./audit-chains.ts";
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
import { AUDIT_ACTIONS } from "./schema.ts";

export type { AuditHead } from "./audit-chains.ts";

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

/**
 * `rows` counts every chain walked; `head` is the hash of the newest row walked (of the one chain
 * asked for, or of the whole log; the genesis hash when there is none). A failure names the chain
 * and its first broken row.
 */
export type VerifyResult =
  | { ok: true; rows: number; head: string }
  | { ok: false; chain: TenantKey; rowId: number; reason: string };

export interface AuditLog {
  /**
   * Appends one hash-chained row. Pass `tx` to write it in the caller's transaction, so the state
   * change it records commits (or rolls back) with it; the chain lock is then held until that
   * transaction ends, so keep it short. Must be READ COMMITTED (the default).
   */
  append(event: AuditEvent, tx?: Transaction): Promise<AuditRow>;
  /**
   * Walks one tenant's chain (`team`), or every chain, in id order; names the first row whose links
   * or contents do not match. One team's chain verifies alone, whatever the other chains hold.
   */
  verify(options?: { team?: TenantKey }): Promise<VerifyResult>;
  /** Every chain that has rows (one per tenant), in name order. */
  chains(): Promise<TenantKey[]>;
  /** The newest row's hash, of one chain or of the whole log (anchor it outside the database). */
  head(team?: TenantKey): Promise<AuditHead | null>;
  /**
   * Newest first, keyset-paginated on (created_at, id); pass `nextCursor` back for the next page.
   * `team` keeps one tenant's rows (every reader a user can reach passes it).
   */
  query(filter?: AuditQuery): Promise<AuditPage>;
  /**
   * A head signed with the audit key (publish it outside the database): of the chain `team`, else of
   * the whole log's newest row (it covers that row's chain only); null when there is none.
   */
  checkpoint(at?: Date, team?: TenantKey): Promise<AuditCheckpoint | null>;
  /** One signed checkpoint per chain: together they cover every team's log. */
  checkpoints(at?: Date): Promise<AuditCheckpoint[]>;
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
  // Appends outside a caller's transaction are written in batches, one transaction each, one group
  // commit per team's chain: a batch takes one chain's lock, and two teams' batches go at once.
  const groups = new Map<TenantKey, (event: ParsedEvent) => Promise<AuditRow>>();
  const grouped = (event: ParsedEvent) => {
    const chain = tenantKey(event.teamId);
    let group = groups.get(chain);
    if (!group) {
      group = createGroupCommit((events: ParsedEvent[]) =>
        pool ? appendOnPool(pool, events) : appendRows(db, events),
      );
      groups.set(chain, group);
    }
    return group(event);
  };
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

    async verify({ team } = {}) {
      const chains = team === undefined ? await listChains(db) : [team];
      let rows = 0;
      let head = GENESIS_HASH;
      let headId = -1;
      for (const chain of chains) {
        const result = await verifyChain(db, chain);
        if (!result.ok) return result;
        rows += result.rows;
        if (result.headId !== null && result.headId > headId) {
          headId = result.headId;
          head = result.head;
        }
      }
      return { ok: true, rows, head };
    },

    chains: () => listChains(db),

    async head(team) {
      const head = await readHead(db, team);
      return head && { id: head.id, hash: head.hash, createdAt: head.createdAt };
    },

    query: (filter = {}) => queryAudit(db, filter),

    async checkpoint(at = new Date(), team) {
      const head = await readHead(db, team);
      return head ? signCheckpoint(key, head, at) : null;
    },

    async checkpoints(at = new Date()) {
      const out: AuditCheckpoint[] = [];
      for (const chain of await listChains(db)) {
        const head = await readHead(db, chain);
        if (head) out.push(signCheckpoint(key, head, at));
      }
      return out;
    },

    checkCheckpoint: (checkpoint) => checkCheckpoint({ db, key }, checkpoint),

    argsMac: (callSha256) => key.argsMac(callSha256),
  };
}

type ParsedEvent = z.output<typeof auditEventSchema>;
