import { tenantKey } from "../../core/tenant.ts";
import type { Storage } from "../../storage.ts";
import type { AuditRow } from "../../store/audit-chain.ts";
import { auditRowsToCsv } from "../../store/audit-format.ts";
import { MAX_AUDIT_PAGE } from "../../store/audit-query.ts";
import { recordAuditRead } from "../../store/audit-read.ts";
import type { SlackOutput } from "../slack-output.ts";
import { toAuditQuery } from "./audit-page-state.ts";
import type { AuditFilters } from "./parse-audit-filters.ts";

/** Most rows one export holds; more means narrower filters. */
export const CSV_MAX_ROWS = 5000;

export interface AuditCsvExport {
  rows: number;
  /** True when more rows matched than the export holds (the newest `rows` are in it). */
  truncated: boolean;
  /** The admin's DM with the bot, where the file was shared. */
  channel: string;
  filename: string;
}

/**
 * Uploads the CSV of the rows of the admin's team matching `filters` (newest first, at most
 * `maxRows`; another team's rows are never read) to `userId`'s DM
 * with the bot: `conversations.open`, then the `files.getUploadURLExternal` /
 * `files.completeUploadExternal` flow through `filesUploadV2`.
 */
export async function exportAuditCsv(
  s: { storage: Pick<Storage, "audit">; slack: Pick<SlackOutput, "client"> },
  options: {
    userId: string;
    teamId?: string | undefined;
    channelId?: string | undefined;
    filters: AuditFilters;
    maxRows?: number;
    now?: Date;
  },
): Promise<AuditCsvExport> {
  const maxRows = options.maxRows ?? CSV_MAX_ROWS;
  // Audited before anything is read; an export that cannot be recorded is not made.
  await recordAuditRead(s.storage.audit, {
    surface: "/hermes audit csv",
    actorId: options.userId,
    teamId: options.teamId,
    channelId: options.channelId,
    filters: { ...options.filters, maxRows },
  });
  const rows: AuditRow[] = [];
  let cursor: string | undefined;
  let truncated = false;
  for (;;) {
    const limit = Math.min(MAX_AUDIT_PAGE, maxRows - rows.length);
    const page = await s.storage.audit.query({
      ...toAuditQuery(options.filters, { limit, ...(cursor ? { cursor } : {}) }),
      team: tenantKey(options.teamId),
    });
    rows.push(...page.rows);
    cursor = page.nextCursor;
    if (!cursor) break;
    if (rows.length >= maxRows) {
      truncated = true;
      break;
    }
  }

  const opened = await s.slack.client.conversations.open({ users: options.userId });
  const channel = opened.channel?.id;
  if (!channel) throw new Error("conversations.open returned no channel");
  const stamp = (options.now ?? new Date()).toISOString().slice(0, 19).replace(/[:T]/g, "-");
  const filename = `hermes-audit-${stamp}.csv`;
  const note = truncated ? ` (the newest ${rows.length}; narrow the filters for older rows)` : "";
  await s.slack.client.filesUploadV2({
    channel_id: channel,
    file: Buffer.from(auditRowsToCsv(rows), "utf8"),
    filename,
    title: "Hermes audit log export",
    initial_comment: `Audit log export: ${rows.length} row${rows.length === 1 ? "" : "s"}${note}.`,
  });
  return { rows: rows.length, truncated, channel, filename };
}
