import type { SlackMessagePayload } from "../answer-blocks.ts";
import type { SlackServices } from "../services.ts";
import { auditPageMessage } from "./audit-blocks.ts";
import { type AuditPageState, toAuditQuery } from "./audit-page-state.ts";

/** Rows per `/hermes audit` page: a screenful, and well within one message's limits. */
export const AUDIT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 30;

/** Queries one page of the audit log (keyset, newest first) and renders it. */
export async function auditPageAnswer(
  s: Pick<SlackServices, "audit">,
  state: AuditPageState,
  pageSize: number = AUDIT_PAGE_SIZE,
): Promise<SlackMessagePayload> {
  const limit = Math.min(Math.max(1, pageSize), MAX_PAGE_SIZE);
  const page = await s.audit.query(
    toAuditQuery(state.filters, { limit, ...(state.cursor ? { cursor: state.cursor } : {}) }),
  );
  return auditPageMessage({ state, rows: page.rows, nextCursor: page.nextCursor, pageSize: limit });
}
