import type { AuditEvent, AuditLog } from "../store/audit.ts";
import type { Database } from "../store/db.ts";
import { type SQL, sql } from "../store/drizzle.ts";
import type { AuditAction, approvals } from "../store/schema.ts";
import type { ApproversRule } from "../tools/define-tool.ts";
import { redact } from "./redact.ts";

/** One `approvals` row as stored. `args` are the real (unredacted) arguments that will be executed. */
export type Approval = typeof approvals.$inferSelect;

export interface ApprovalDeps {
  db: Database;
  audit: AuditLog;
  /** Clock for tests; absent = the database's `now()`, so replicas with skewed clocks agree. */
  now?: () => Date;
}

const RULES: readonly ApproversRule[] = ["requester_or_admin", "admin", "not_requester"];

export function isApproversRule(value: string): value is ApproversRule {
  return (RULES as readonly string[]).includes(value);
}

/** "Now" as SQL: the injected clock as a parameter, else the transaction's `now()`. */
export function nowSql(deps: Pick<ApprovalDeps, "now">): SQL {
  return deps.now ? sql`${deps.now().toISOString()}::timestamptz` : sql`now()`;
}

/**
 * The audit row describing `approval`: the requester as `user_id`, where it was asked, the call it
 * is bound to, and a redacted copy of the args (the audit log never holds raw PII; the approval row
 * does, because those exact args are what runs once approved). The approval's plain call hash is
 * passed on; the audit log stores only its keyed HMAC, the same value the call's other rows carry.
 */
export function approvalAuditEvent(
  approval: Approval,
  action: AuditAction,
  extra: Pick<AuditEvent, "actorId" | "error"> = {},
): AuditEvent {
  return {
    action,
    tool: approval.tool,
    userId: approval.requesterId,
    teamId: approval.teamId,
    channelId: approval.channelId,
    threadTs: approval.threadTs,
    runId: approval.runId,
    toolCallId: approval.toolCallId,
    approvalId: approval.id,
    args: redact(approval.args),
    argsSha256: approval.argsSha256,
    ...extra,
  };
}
