import { isKeyedBinding } from "../core/args-hash.ts";
import { HermesError } from "../core/errors.ts";
import type { PermissionLevel } from "../core/permission-levels.ts";
import type { AuditEvent } from "../store/audit.ts";
import { and, eq, gt, sql } from "../store/drizzle.ts";
import { approvals } from "../store/schema.ts";
import { expireApproval } from "./approval-expiry.ts";
import {
  type Approval,
  type ApprovalDeps,
  approvalAuditEvent,
  callBinding,
  isApproversRule,
  nowSql,
  settledArgs,
} from "./approval-record.ts";
import { traceApprovalWait } from "./approval-wait-span.ts";
import { mayDecide } from "./may-decide.ts";

export interface DecideInput {
  approvalId: string;
  /** The Slack user who clicked. */
  deciderId: string;
  /** Their resolved level (HERMES_ADMINS, then `users`). */
  deciderLevel: PermissionLevel;
  decision: "approved" | "rejected";
  /**
   * The binding of the call the caller is about to resume (the run snapshot's pending call), if known:
   * its keyed hash as stored, or its plain hash (keyed here before the comparison).
   */
  expectedArgsSha256?: string;
  /**
   * The channel message the button was on, for clicks on a card in a conversation: an approval decides
   * only from its own card, so a click whose `value` names another approval changes nothing.
   */
  clickedCard?: { channelId?: string | undefined; ts: string };
}

/**
 * What a click did. Only `decided` changed anything; `refused` and `args_mismatch` are audited as
 * `tool.denied` and leave the approval pending; `expired` marked it expired (audited `tool.expired`).
 */
export type DecideResult =
  | { kind: "decided"; approval: Approval }
  | { kind: "refused"; approval: Approval; reason: string }
  | { kind: "already_decided"; approval: Approval }
  | { kind: "expired"; approval: Approval }
  | { kind: "args_mismatch"; approval: Approval; reason: string }
  | { kind: "not_found" };

/** A click can lose a race at most twice (to an expiry, then to a decision); then it is settled. */
const ATTEMPTS = 3;

/**
 * Decides an approval. Exactly one click wins, however many arrive at once: the winner is the one
 * whose `UPDATE … WHERE status = 'pending' AND expires_at > now` returns the row, and its audit row
 * commits in the same transaction. Every loser re-reads the row and reports what happened instead.
 */
export async function decideApproval(deps: ApprovalDeps, input: DecideInput): Promise<DecideResult> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const found = await readForDecision(deps, input.approvalId);
    if (!found) {
      await deps.audit.append(unknownApprovalEvent(input));
      return { kind: "not_found" };
    }
    const { approval, due } = found;
    const offCard = offCardReason(approval, input.clickedCard);
    if (offCard) {
      await ignored(deps, approval, input, offCard);
      return { kind: "refused", approval, reason: offCard };
    }
    if (approval.status !== "pending") {
      await ignored(
        deps,
        approval,
        input,
        `already ${approval.status}${approval.decidedBy ? ` by ${approval.decidedBy}` : ""}`,
      );
      return { kind: "already_decided", approval };
    }

    const check = checkDecider(approval, input);
    if (!check.ok) {
      await deps.audit.append(
        approvalAuditEvent(approval, "tool.denied", {
          actorId: input.deciderId,
          error: `refused to ${input.decision === "approved" ? "approve" : "reject"}: ${check.reason}`,
        }),
      );
      return { kind: "refused", approval, reason: check.reason };
    }

    if (due) {
      const expired = await expireApproval(deps, approval.id);
      if (expired) return { kind: "expired", approval: expired };
      continue; // someone else settled it first: report what they did
    }

    // Rejecting runs nothing, so an approval that cannot be verified may still be rejected.
    const mismatch = argsMismatch(deps, approval, input.expectedArgsSha256, input.decision);
    if (mismatch) {
      await deps.audit.append(
        approvalAuditEvent(approval, "tool.denied", { actorId: input.deciderId, error: mismatch }),
      );
      return { kind: "args_mismatch", approval, reason: mismatch };
    }

    const decided = await applyDecision(deps, approval, input);
    if (decided) {
      traceApprovalWait(decided, input.decision);
      return { kind: "decided", approval: decided };
    }
  }
  const final = await readForDecision(deps, input.approvalId);
  if (!final) return { kind: "not_found" };
  if (final.approval.status !== "pending") {
    await ignored(deps, final.approval, input, `already ${final.approval.status}`);
    return { kind: "already_decided", approval: final.approval };
  }
  // Unreachable unless the row keeps changing under us; say so rather than guess an outcome.
  throw new HermesError("approval_invalid", "This approval changed while it was being decided. Try again.");
}

/** Audits a click that changed nothing on an approval that exists (who clicked, what, and why not). */
function ignored(deps: ApprovalDeps, approval: Approval, input: DecideInput, why: string) {
  return deps.audit.append(
    approvalAuditEvent(approval, "approval.ignored", {
      actorId: input.deciderId,
      error: `${input.decision === "approved" ? "approve" : "reject"} click ignored: ${why}`,
    }),
  );
}

/** A click naming no approval (forged or long gone): audited with the id it carried, capped. */
function unknownApprovalEvent(input: DecideInput): AuditEvent {
  return {
    action: "approval.ignored",
    tool: "(unknown)",
    actorId: input.deciderId,
    approvalId: input.approvalId.slice(0, 100),
    error: `${input.decision === "approved" ? "approve" : "reject"} click ignored: no such approval`,
  };
}

/** Why a click from a channel message may not decide this approval: it was not on its card. */
function offCardReason(approval: Approval, card: DecideInput["clickedCard"]): string | undefined {
  if (!card || !approval.cardTs) return undefined;
  const sameChannel = !card.channelId || !approval.cardChannel || card.channelId === approval.cardChannel;
  return sameChannel && card.ts === approval.cardTs
    ? undefined
    : "that button belongs to another message than this approval's card";
}

async function readForDecision(
  deps: ApprovalDeps,
  id: string,
): Promise<{ approval: Approval; due: boolean } | undefined> {
  const [row] = await deps.db
    .select({ approval: approvals, due: sql<boolean>`${approvals.expiresAt} <= ${nowSql(deps)}` })
    .from(approvals)
    .where(eq(approvals.id, id));
  return row;
}

function checkDecider(approval: Approval, input: DecideInput): { ok: true } | { ok: false; reason: string } {
  // A rule this code does not know (a newer replica wrote it, or the row was edited) decides nothing.
  if (!isApproversRule(approval.approvers)) {
    return { ok: false, reason: `unknown approvers rule "${approval.approvers}"` };
  }
  return mayDecide({
    rule: approval.approvers,
    requesterId: approval.requesterId,
    deciderId: input.deciderId,
    deciderLevel: input.deciderLevel,
  });
}

/**
 * Why the stored call is no longer the call that was asked about, if it is not. The binding is keyed
 * with the audit key: whoever can edit the row cannot compute a matching one for other arguments. A
 * bare (plain) hash is never trusted, since anyone can compute one.
 */
function argsMismatch(
  deps: ApprovalDeps,
  approval: Approval,
  expected: string | undefined,
  decision: DecideInput["decision"],
): string | undefined {
  if (!isKeyedBinding(approval.argsSha256)) {
    if (decision === "rejected") return undefined;
    return "this approval was stored without a keyed binding to its call, so it cannot be verified; ask again";
  }
  if (callBinding(deps, approval.tool, approval.args) !== approval.argsSha256) {
    return "the stored arguments no longer match the call that was asked about";
  }
  const keyed = expected === undefined || isKeyedBinding(expected) ? expected : deps.audit.argsMac(expected);
  if (keyed !== undefined && keyed !== approval.argsSha256) {
    return "the arguments changed since the approval was requested";
  }
  return undefined;
}

/**
 * The one atomic step. The args and their hash are part of the WHERE, so a row changed between the
 * check above and this statement cannot be approved. The same statement replaces the raw args with
 * their redacted copy: from here on the run's own snapshot carries the call (until the run ends).
 */
async function applyDecision(
  deps: ApprovalDeps,
  approval: Approval,
  input: DecideInput,
): Promise<Approval | undefined> {
  const now = nowSql(deps);
  return deps.db.transaction(async (tx) => {
    const [won] = await tx
      .update(approvals)
      .set({
        status: input.decision,
        decidedBy: input.deciderId,
        decidedAt: sql`${now}`,
        args: settledArgs(deps, approval.args),
        // A plain hash left by an older version is keyed as the row is settled.
        argsSha256: isKeyedBinding(approval.argsSha256)
          ? approval.argsSha256
          : deps.audit.argsMac(approval.argsSha256),
      })
      .where(
        and(
          eq(approvals.id, approval.id),
          eq(approvals.status, "pending"),
          gt(approvals.expiresAt, now),
          eq(approvals.argsSha256, approval.argsSha256),
          sql`${approvals.args} = ${JSON.stringify(approval.args)}::jsonb`,
        ),
      )
      .returning();
    if (!won) return undefined;
    const action = input.decision === "approved" ? "tool.approved" : "tool.rejected";
    await deps.audit.append(approvalAuditEvent(won, action, { actorId: input.deciderId }), tx);
    return won;
  });
}
