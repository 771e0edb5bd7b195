import { and, asc, eq, inArray, lte, sql } from "../store/drizzle.ts";
import { approvals } from "../store/schema.ts";
import { type Approval, type ApprovalDeps, approvalAuditEvent, nowSql } from "./approval-record.ts";

const SWEEP_BATCH = 100;

/**
 * Marks one pending approval that is past `expires_at` as expired, with its `tool.expired` row, in one
 * transaction. Undefined when it was not pending-and-due any more (someone else settled it).
 */
export async function expireApproval(deps: ApprovalDeps, id: string): Promise<Approval | undefined> {
  const now = nowSql(deps);
  return deps.db.transaction(async (tx) => {
    const [expired] = await tx
      .update(approvals)
      .set({ status: "expired", decidedAt: sql`${now}` })
      .where(and(eq(approvals.id, id), eq(approvals.status, "pending"), lte(approvals.expiresAt, now)))
      .returning();
    if (expired) await deps.audit.append(approvalAuditEvent(expired, "tool.expired"), tx);
    return expired;
  });
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
    const expired = await tx
      .update(approvals)
      .set({ status: "expired", decidedAt: sql`${now}` })
      .where(and(inArray(approvals.id, due), eq(approvals.status, "pending")))
      .returning();
    expired.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || a.id.localeCompare(b.id));
    for (const row of expired) await deps.audit.append(approvalAuditEvent(row, "tool.expired"), tx);
    return expired;
  });
}
