import type { AuditLog } from "./audit.ts";

/** Where someone read the audit log from (the `tool` column of their `audit.queried` row says it). */
export type AuditReadSurface =
  | "/hermes audit"
  | "/hermes audit next"
  | "/hermes audit csv"
  | "app_home"
  | "sandbox_page"
  | "npm run audit";

export interface AuditRead {
  surface: AuditReadSurface;
  /** Who asked: a Slack user id; null for the CLI (its OS user goes into `args`). */
  actorId: string | null;
  teamId?: string | undefined;
  channelId?: string | undefined;
  /** The filters as given (user, channel, tool, action, since, until, page, cursor…): stored in `args`. */
  filters: Record<string, unknown>;
}

/**
 * Appends the `audit.queried` row for one read of the audit log, before the rows are read: reading
 * the log is itself audited, and a read that cannot be recorded does not happen (the error says so).
 */
export async function recordAuditRead(audit: Pick<AuditLog, "append">, read: AuditRead): Promise<void> {
  await audit.append({
    action: "audit.queried",
    tool: read.surface,
    userId: read.actorId,
    actorId: read.actorId,
    teamId: read.teamId ?? null,
    channelId: read.channelId ?? null,
    args: read.filters,
  });
}
