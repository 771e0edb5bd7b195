import type { AuditRow } from "../../store/audit-chain.ts";
import { escapeMrkdwn } from "../mrkdwn.ts";
import { oneLine } from "./block-builders.ts";
import type { AuditFilters } from "./parse-audit-filters.ts";

const DETAIL_MAX = 90;

/**
 * One audit row as a line of mrkdwn: id, time (UTC), action, tool, user, actor, then the error or
 * a short copy of the (already redacted) args. Stored text is untrusted: escaped, on one line,
 * without backticks that could break out of the code span.
 */
export function auditRowLine(row: AuditRow): string {
  const time = `${row.createdAt.slice(0, 19).replace("T", " ")}`;
  const parts = [
    `\`#${row.id}\` \`${time}\``,
    `*${row.action.replace(/^tool\./, "")}*`,
    `\`${clean(row.tool, 64)}\``,
    row.userId ? `<@${row.userId}>` : "—",
  ];
  if (row.actorId) parts.push(`by <@${row.actorId}>`);
  const detail = detailOf(row);
  if (detail) parts.push(detail);
  return parts.join(" · ");
}

/** The filters as people read them, for the context line above the rows. */
export function describeAuditFilters(filters: AuditFilters): string {
  const parts: string[] = [];
  if (filters.user) parts.push(`user <@${filters.user}>`);
  if (filters.channel) parts.push(`channel <#${filters.channel}>`);
  if (filters.tool) parts.push(`tool \`${clean(filters.tool, 100)}\``);
  if (filters.action?.length) parts.push(`action ${filters.action.map((a) => a.slice(5)).join(", ")}`);
  if (filters.since) parts.push(`since ${utc(filters.since)}`);
  if (filters.until) parts.push(`until ${utc(filters.until)}`);
  return parts.length > 0 ? `Filters: ${parts.join(" · ")}` : "Filters: none";
}

function detailOf(row: AuditRow): string | undefined {
  if (row.error) return `error: ${clean(row.error, DETAIL_MAX)}`;
  if (row.args !== null && JSON.stringify(row.args) !== "{}") {
    return `\`${clean(JSON.stringify(row.args), DETAIL_MAX)}\``;
  }
  if (row.resultSummary) return clean(row.resultSummary, DETAIL_MAX);
  return undefined;
}

/** Escaped, one line, at most `max` characters after escaping (an entity is never cut in half). */
export function clean(text: string, max: number): string {
  const escaped = escapeMrkdwn(oneLine(text.replace(/`/g, "'"), max));
  return escaped.length > max ? `${escaped.slice(0, max - 1).replace(/&[a-z]*$/, "")}…` : escaped;
}

function utc(iso: string): string {
  return `${iso.slice(0, 16).replace("T", " ")} UTC`;
}
