import { isKeyedBinding } from "../core/args-hash.ts";
import type { Transaction } from "../store/db.ts";
import { and, asc, eq, inArray, lte, sql } from "../store/drizzle.ts";
import { approvals } from "../store/schema.ts";
import {
  type Approval,
  type ApprovalDeps,
  approvalAuditEvent,
  nowSql,
  settledArgs,
} from "./approval-record.ts";
import { traceApprovalWait } from "./approval-wait-span.ts";

const SWEEP_BATCH = 100;

/**
 * An expired approval's call never runs: in the same transaction its args become their redacted copy,
 * and a plain hash left by an older version becomes its keyed form. Returns the row as now stored.
 */
async function settleExpired(deps: ApprovalDeps, tx: Transaction, row: Approval): Promise<Approval> {
  const args = settledArgs(deps, row.args);
  const argsSha256 = isKeyedBinding(row.argsSha256) ? row.argsSha256 : deps.audit.argsMac(row.argsSha256);
  await tx.update(approvals).set({ args, argsSha256 }).where(eq(approvals.id, row.id));
  return { ...row, args, argsSha256 };
}

/**
 * Marks one pending approval that is past `expires_at` as expired, with its `tool.expired` row, in one
 * transaction. Undefined when it was not pending-and-due any more (someone else settled it).
 */
export async function expireApproval(deps: ApprovalDeps, id: string): Promise<Approval | undefined> {
  const now = nowSql(deps);
  const expired = await deps.db.transaction(async (tx) => {
    const [due] = await tx
      .update(approvals)
      .set({ status: "expired", decidedAt: sql`${now}` })
      .where(and(eq(approvals.id, id), eq(approvals.status, "pending"), lte(approvals.expiresAt, now)))
      .returning();
    if (!due) return undefined;
    const expired = await settleExpired(deps, tx, due);
    await deps.audit.append(approvalAuditEvent(expired, "tool.expired"), tx);
    return expired;
  });
  if (expired) traceApprovalWait(expired, "expired");
  return expired;
}

/**
 * Expires every pending approval past its deadline, in batches, each batch with its audit rows in
 * one transaction. Rows are claimed with `FOR UPDATE SKIP LOCKED`: sweepers on several replicas take
 * disjoint rows (no double `tool.expired`, no deadlock), and a row a click is deciding right now is
 * left to that click.
 */
export async function expireDueApprovals(deps: ApprovalDeps): Promise<Approval[]> {
  const out: Approval[] = [];
  for (;;) {
    const batch = await expireBatch(deps);
    for (const a of batch) traceApprovalWait(a, "expired");
    out.push(...batch);
    if (batch.length < SWEEP_BATCH) return out;
  }
}

async function expireBatch(deps: ApprovalDeps): Promise<Approval[]> {
  const now = nowSql(deps);
  return deps.db.transaction(async (tx) => {
    const due = tx
      .select({ id: approvals.id })
      .from(approvals)
      .where(and(eq(approvals.status, "pending"), lte(approvals.expiresAt, now)))
      .orderBy(asc(approvals.expiresAt))
      .limit(SWEEP_BATCH)
      .for("update", { skipLocked: true });
    const rows = await tx
      .update(approvals)
      .set({ status: "expired", decidedAt: sql`${now}` })
      .where(and(inArray(approvals.id, due), eq(approvals.status, "pending")))
      .returning();
    rows.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || a.id.localeCompare(b.id));
    const expired: Approval[] = [];
    for (const row of rows) {
      const settled = await settleExpired(deps, tx, row);
      await deps.audit.append(approvalAuditEvent(settled, "tool.expired"), tx);
      expired.push(settled);
    }
    return expired;
  });
}
