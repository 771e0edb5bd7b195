import type { CreateApprovalInput } from "../../src/policy/approval-store.ts";
import type { Database } from "../../src/store/db.ts";
import { execSql } from "./pg.ts";

export const REQUESTER = "U0REQ";

let seq = 0;

/** A send_message approval request with a fresh run and call id (an email in its text, for redaction). */
export function approvalInput(over: Partial<CreateApprovalInput> = {}): CreateApprovalInput {
  seq++;
  return {
    tool: "send_message",
    args: { channel: "C0GENERAL", text: `Deploy #${seq} done, ping ops@example.com` },
    requesterId: REQUESTER,
    sessionKey: "T01:C0GENERAL:1700000000.000100",
    runId: `run_${seq}`,
    toolCallId: `call_${seq}`,
    teamId: "T01",
    channelId: "C0GENERAL",
    threadTs: "1700000000.000100",
    ...over,
  };
}

/** The audit rows of one approval, oldest first. */
export function approvalAuditRows(db: Database, approvalId: string) {
  return execSql<{ action: string; actor_id: string | null; error: string | null; args: unknown }>(
    db,
    `SELECT action, actor_id, error, args FROM audit_log WHERE approval_id = '${approvalId}' ORDER BY id`,
  );
}
