import type { Access } from "../../agent/run/policy-hook.ts";
import { sameTenant, type TenantKey } from "../../core/tenant.ts";
import { isApproversRule } from "../../policy/approval-record.ts";
import type { Approval } from "../../policy/approval-store.ts";
import { mayDecide } from "../../policy/may-decide.ts";
import type { Storage } from "../../storage.ts";
import { MESSAGE_TEXT_BUDGET, type SlackMessagePayload } from "../answer-blocks.ts";
import { approvalCard, type CardApproval, slackDate } from "../approval-card.ts";
import { type Block, blocksTextLength, context, section } from "./block-builders.ts";

const MESSAGE_MAX_BLOCKS = 50;

/**
 * Pending approvals `access` may decide, oldest first: of `team` only (`core/tenant.ts`: another
 * team's are never shown), by the same rule the buttons enforce (`mayDecide`: the requester's own,
 * any for admins, four-eyes rules respected). An unknown rule counts as admins-only (fail closed).
 * `team` absent: every team's (an admin surface that names no team).
 */
export async function decidableApprovals(
  s: Pick<Storage, "approvals">,
  access: Pick<Access, "userId" | "level">,
  team?: TenantKey,
): Promise<Approval[]> {
  const pending = await s.approvals.listPending();
  return pending.filter(
    (a) =>
      (team === undefined || sameTenant(a.teamId, team)) &&
      mayDecide({
        rule: isApproversRule(a.approvers) ? a.approvers : "admin",
        requesterId: a.requesterId,
        deciderId: access.userId,
        deciderLevel: access.level,
      }).ok,
  );
}

export interface CardsBudget {
  maxBlocks: number;
  /** Characters of text across the cards. */
  maxChars: number;
}

/**
 * Approve / Reject cards for `approvals`, each under a line saying where and when it was asked, as
 * many as fit the budget (one block is kept for "…and N more"). Card block ids carry the approval
 * id, so they are unique in the message.
 */
export function approvalCardsBlocks(
  approvals: readonly Approval[],
  /** The card's view of an approval: `toCardApproval`, which removes configured secret values. */
  toCard: (a: Approval) => CardApproval,
  budget: CardsBudget,
): Block[] {
  const out: Block[] = [];
  let chars = 0;
  let shown = 0;
  for (const a of approvals) {
    const card = approvalCard(toCard(a), { kind: "pending" });
    const blocks = [context(`${where(a)} · ${slackDate(a.createdAt)}`), ...card.blocks];
    const size = blocksTextLength(blocks);
    if (out.length + blocks.length + 1 > budget.maxBlocks || chars + size > budget.maxChars) break;
    out.push(...blocks);
    chars += size;
    shown++;
  }
  const more = approvals.length - shown;
  if (more > 0) out.push(context(`…and ${more} more pending approval${more === 1 ? "" : "s"}.`));
  return out;
}

/** `/hermes approvals`: the caller's decidable approvals as cards, within one message's limits. */
export function approvalsMessage(
  approvals: readonly Approval[],
  toCard: (a: Approval) => CardApproval,
): SlackMessagePayload {
  if (approvals.length === 0) {
    return { text: "No pending approvals.", blocks: [section("No pending approvals you can decide.")] };
  }
  const title = section(`*Pending approvals you can decide* (${approvals.length})`);
  const cards = approvalCardsBlocks(approvals, toCard, {
    maxBlocks: MESSAGE_MAX_BLOCKS - 1,
    maxChars: MESSAGE_TEXT_BUDGET - 200,
  });
  const count = `${approvals.length} pending approval${approvals.length === 1 ? "" : "s"}`;
  return { text: `${count} you can decide.`, blocks: [title, ...cards] };
}

function where(a: Approval): string {
  if (!a.channelId) return "Asked";
  return a.channelId.startsWith("D") ? "Asked in a direct message" : `Asked in <#${a.channelId}>`;
}
