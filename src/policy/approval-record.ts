import { argsSha256 } from "../core/args-hash.ts";
import { type JsonValue, toStorableJson } from "../core/canonical-json.ts";
import type { ApproversRule } from "../core/permission-levels.ts";
import type { AuditEvent, AuditLog } from "../store/audit.ts";
import type { Database } from "../store/db.ts";
import { type SQL, sql } from "../store/drizzle.ts";
import type { AuditAction, approvals } from "../store/schema.ts";
import { redact } from "./redact.ts";

/**
 * One `approvals` row as stored. While `pending`, `args` are the real arguments, exactly what runs
 * once approved; the statement that decides or expires it replaces them with their redacted copy.
 * `argsSha256` is the call's keyed hash (`hmac-sha256:…`, as in the audit log), never the plain one.
 */
export type Approval = typeof approvals.$inferSelect;

export interface ApprovalDeps {
  db: Database;
  /** Appends the lifecycle rows; its `argsMac` keys the call hash an approval is bound to. */
  audit: AuditLog;
  /** Redacts the arguments kept once an approval is decided or expired (the audit log's redaction). */
  redact: (value: unknown) => unknown;
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

/** A binding the audit log takes: keyed, or a plain hash it keys itself. */
const BINDING = /^(hmac-sha256:)?[0-9a-f]{64}$/;

/** What an approval of `tool` with `args` is bound to: the keyed hash of the call. */
export function callBinding(deps: Pick<ApprovalDeps, "audit">, tool: string, args: unknown): string {
  return deps.audit.argsMac(argsSha256(tool, args));
}

/** The arguments a decided or expired approval keeps: redacted as the audit row's are. */
export function settledArgs(deps: Pick<ApprovalDeps, "redact">, args: unknown): JsonValue {
  return toStorableJson(deps.redact(args));
}

/**
 * The audit row describing `approval`: the requester as `user_id`, where it was asked, the call it
 * is bound to, and a redacted copy of the args (the audit log never holds raw PII; a pending approval
 * row does, because those exact args are what runs once approved). The approval's keyed call hash is
 * passed on as it is: the same value the call's other rows carry.
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
    // A row whose binding was cleared (stored before bindings were keyed, then settled) names none.
    ...(BINDING.test(approval.argsSha256) ? { argsSha256: approval.argsSha256 } : {}),
    ...extra,
  };
}
