import type { TenantKey } from "../core/tenant.ts";
import { type AuditRow, auditRowColumns, auditRowHash, GENESIS_HASH, utcIso } from "./audit-chain.ts";
import type { Database } from "./db.ts";
import { and, asc, desc, eq, gt, sql } from "./drizzle.ts";
import { auditLog } from "./schema.ts";

/**
 * The audit log is one hash chain per tenant (`core/tenant.ts`): a row's `chain_id` is its team's
 * key, each chain starts at the genesis hash and links only its own rows, so one team's log verifies
 * alone. Rows written before chains were per team form the '' chain, whatever their team.
 */

const VERIFY_BATCH = 1000;

export interface AuditHead {
  id: number;
  hash: string;
  createdAt: string;
}

/** A head and the chain it heads (`''`: the chain of rows without a team, and of rows from before). */
export interface ChainHead extends AuditHead {
  chain: TenantKey;
}

export type ChainVerifyResult =
  | { ok: true; chain: TenantKey; rows: number; head: string; headId: number | null }
  | { ok: false; chain: TenantKey; rowId: number; reason: string };

/** Walks one chain in id order; names the first row whose links or contents do not match. */
export async function verifyChain(db: Database, chain: TenantKey): Promise<ChainVerifyResult> {
  let prev = GENESIS_HASH;
  let prevId: number | undefined;
  let rows = 0;
  for (;;) {
    const batch: AuditRow[] = await db
      .select(auditRowColumns)
      .from(auditLog)
      .where(and(eq(auditLog.chainId, chain), prevId === undefined ? undefined : gt(auditLog.id, prevId)))
      .orderBy(asc(auditLog.chainId), asc(auditLog.id))
      .limit(VERIFY_BATCH);
    for (const row of batch) {
      if (row.prevHash !== prev) {
        const before = prevId === undefined ? "the chain start" : `row ${prevId}`;
        return {
          ok: false,
          chain,
          rowId: row.id,
          reason: `prev_hash does not match the hash of ${before} (a row was removed, inserted or rewritten)`,
        };
      }
      if (auditRowHash(row) !== row.hash) {
        return {
          ok: false,
          chain,
          rowId: row.id,
          reason: "hash does not match the row's contents (row changed)",
        };
      }
      prev = row.hash;
      prevId = row.id;
      rows++;
    }
    if (batch.length < VERIFY_BATCH) return { ok: true, chain, rows, head: prev, headId: prevId ?? null };
  }
}

/**
 * Every chain that has rows, in name order. A loose index scan over (chain_id, id): one index probe
 * per chain, not a read of every row.
 */
export async function listChains(db: Database): Promise<TenantKey[]> {
  const { rows } = await db.execute<{ chain_id: string | null }>(sql`
    WITH RECURSIVE c AS (
      (SELECT chain_id FROM audit_log ORDER BY chain_id LIMIT 1)
      UNION ALL
      SELECT (SELECT a.chain_id FROM audit_log a WHERE a.chain_id > c.chain_id ORDER BY a.chain_id LIMIT 1)
      FROM c WHERE c.chain_id IS NOT NULL
    )
    SELECT chain_id FROM c WHERE chain_id IS NOT NULL`);
  return rows.map((r) => r.chain_id ?? "");
}

/** The newest row of one chain, or of the whole log (`chain` undefined); null when there is none. */
export async function readHead(db: Database, chain?: TenantKey): Promise<ChainHead | null> {
  const [row] = await db
    .select({
      id: auditLog.id,
      hash: auditLog.hash,
      createdAt: utcIso(auditLog.createdAt),
      chain: auditLog.chainId,
    })
    .from(auditLog)
    .where(chain === undefined ? undefined : eq(auditLog.chainId, chain))
    .orderBy(...(chain === undefined ? [desc(auditLog.id)] : [desc(auditLog.chainId), desc(auditLog.id)]))
    .limit(1);
  return row ?? null;
}
