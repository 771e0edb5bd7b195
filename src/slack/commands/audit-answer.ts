import { tenantKey } from "../../core/tenant.ts";
import type { Storage } from "../../storage.ts";
import { type AuditRead, recordAuditRead } from "../../store/audit-read.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import { auditPageMessage } from "./audit-blocks.ts";
import { type AuditPageState, toAuditQuery } from "./audit-page-state.ts";

/** Rows per `/hermes audit` page: a screenful, and well within one message's limits. */
export const AUDIT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 30;

/** Who is paging through the audit log, and from where (their `audit.queried` rows say so). */
export type AuditReader = Pick<AuditRead, "actorId" | "teamId" | "channelId">;

/**
 * Queries one page of the reader's team's audit rows (keyset, newest first; another team's rows are
 * never read) and renders it. The read is audited
 * first (`audit.queried` with the filters, the page and its cursor); if that row cannot be written,
 * nothing is read.
 */
export async function auditPageAnswer(
  s: Pick<Storage, "audit">,
  state: AuditPageState,
  pageSize: number = AUDIT_PAGE_SIZE,
  reader: AuditReader,
): Promise<SlackMessagePayload> {
  const limit = Math.min(Math.max(1, pageSize), MAX_PAGE_SIZE);
  await recordAuditRead(s.audit, {
    ...reader,
    surface: state.cursor ? "/hermes audit next" : "/hermes audit",
    filters: { ...state.filters, page: state.page, ...(state.cursor ? { cursor: state.cursor } : {}) },
  });
  const page = await s.audit.query({
    ...toAuditQuery(state.filters, { limit, ...(state.cursor ? { cursor: state.cursor } : {}) }),
    team: tenantKey(reader.teamId),
  });
  return auditPageMessage({ state, rows: page.rows, nextCursor: page.nextCursor, pageSize: limit });
}
