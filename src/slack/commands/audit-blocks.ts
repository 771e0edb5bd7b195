import type { types } from "@slack/bolt";
import type { AuditRow } from "../../store/audit-chain.ts";
import { fallbackText, type SlackMessagePayload } from "../answer-blocks.ts";
import { type AuditPageState, encodeAuditState } from "./audit-page-state.ts";
import { auditRowLine, describeAuditFilters } from "./audit-row-line.ts";
import { type Block, context, linesToSections, section } from "./block-builders.ts";

export const AUDIT_NEXT_ACTION = "hermes.audit.next";
export const AUDIT_CSV_ACTION = "hermes.audit.csv";

export interface AuditPageMessageInput {
  state: AuditPageState;
  rows: AuditRow[];
  /** The store's cursor after these rows; absent on the last page. */
  nextCursor?: string | undefined;
  pageSize: number;
}

/**
 * One page of `/hermes audit` as an ephemeral message: a title with the row range, the filters,
 * one line per row (newest first), and "Next page" (the filters plus the keyset cursor in its value)
 * and "Export CSV" buttons. Block ids carry the page number, so replacing the message with the next
 * page never reuses one.
 */
export function auditPageMessage({
  state,
  rows,
  nextCursor,
  pageSize,
}: AuditPageMessageInput): SlackMessagePayload {
  const first = (state.page - 1) * pageSize + 1;
  const range = rows.length > 0 ? `rows ${first}–${first + rows.length - 1}` : "no rows";
  const title = `*Audit log* — page ${state.page}, ${range}, newest first (times UTC)`;
  const blocks: Block[] = [
    section(title, `hermes.audit.title:${state.page}`),
    context(describeAuditFilters(state.filters)),
  ];
  if (rows.length === 0) {
    blocks.push(section(state.page === 1 ? "No audit rows match these filters." : "No more rows."));
  } else {
    blocks.push(...linesToSections(rows.map(auditRowLine)));
  }

  const buttons: types.Button[] = [];
  if (nextCursor) {
    buttons.push({
      type: "button",
      action_id: AUDIT_NEXT_ACTION,
      text: { type: "plain_text", text: "Next page", emoji: true },
      value: encodeAuditState({ filters: state.filters, cursor: nextCursor, page: state.page + 1 }),
    });
  }
  if (rows.length > 0) {
    buttons.push({
      type: "button",
      action_id: AUDIT_CSV_ACTION,
      text: { type: "plain_text", text: "Export CSV", emoji: true },
      value: encodeAuditState({ filters: state.filters, page: 1 }),
    });
  }
  if (buttons.length > 0) {
    blocks.push({ type: "actions", block_id: `hermes.audit.nav:${state.page}`, elements: buttons });
  }
  return { text: fallbackText(`Audit log, page ${state.page}: ${range}`), blocks };
}
