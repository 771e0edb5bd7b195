import { tracing } from "../core/tracing.ts";
import type { Approval } from "./approval-record.ts";

/**
 * The span of an approval's wait, from the pause that asked for it to its decision or expiry (when
 * tracing is on). It is made once the wait is over, so it is its own trace: the run id and the
 * conversation id tie it to the run's.
 */
export function traceApprovalWait(approval: Approval, outcome: "approved" | "rejected" | "expired"): void {
  const t = tracing();
  if (!t.enabled) return;
  const began = new Date(approval.createdAt).getTime();
  const span = t.startSpan(`approval_wait ${approval.tool}`, {
    ...(Number.isFinite(began) ? { startTime: began } : {}),
    attributes: {
      "gen_ai.tool.name": approval.tool,
      "gen_ai.tool.call.id": approval.toolCallId ?? undefined,
      "gen_ai.conversation.id": approval.sessionKey,
      "hermes.run.id": approval.runId ?? undefined,
      "hermes.approval.id": approval.id,
      "hermes.approval.approvers": approval.approvers,
      "hermes.approval.outcome": outcome,
    },
  });
  const ended = approval.decidedAt ? new Date(approval.decidedAt).getTime() : Date.now();
  span.end(Number.isFinite(ended) ? ended : Date.now());
}
