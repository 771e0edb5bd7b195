import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { approvalAuditEvent } from "../policy/approval-record.ts";
import type { Storage } from "../storage.ts";
import { APPROVE_ACTION, REJECT_ACTION } from "./approval-card.ts";

/**
 * A replayed Approve / Reject click changes nothing, but it is an attempt on an approval: one
 * `approval.ignored` row with who sent it and which approval it named. Other replayed interactions
 * are only logged by the replay guard.
 */
export async function auditReplayedClick(
  s: Pick<Storage, "approvals" | "audit"> & { logger: Logger },
  body: Record<string, unknown>,
): Promise<void> {
  const action = (body.actions as Array<{ action_id?: unknown; value?: unknown }> | undefined)?.[0];
  if (action?.action_id !== APPROVE_ACTION && action?.action_id !== REJECT_ACTION) return;
  const approvalId = typeof action.value === "string" ? action.value.slice(0, 100) : "";
  const actorId = (body.user as { id?: unknown } | undefined)?.id;
  const error = `${action.action_id === APPROVE_ACTION ? "approve" : "reject"} click ignored: replayed request`;
  try {
    const approval = approvalId ? await s.approvals.get(approvalId) : undefined;
    await s.audit.append(
      approval
        ? approvalAuditEvent(approval, "approval.ignored", {
            actorId: typeof actorId === "string" ? actorId : null,
            error,
          })
        : {
            action: "approval.ignored",
            tool: "(unknown)",
            approvalId,
            actorId: typeof actorId === "string" ? actorId : null,
            error,
          },
    );
  } catch (err) {
    s.logger.warn({ err: errorMessage(err), approvalId }, "replayed click not audited");
  }
}
