import type { TenantKey } from "../../core/tenant.ts";
import type { Database } from "../../store/db.ts";
import { and, eq, gte, type SQL, sql } from "../../store/drizzle.ts";
import { TICKET_PRIORITIES, TICKET_STATUSES, tickets } from "../../store/schema.ts";

export const REPORT_GROUPS = ["status", "priority", "assignee", "day"] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];

export interface GroupCount {
  key: string;
  count: number;
}

export const UNASSIGNED = "unassigned";

/**
 * One team's tickets created since `since`, counted per group. Statuses and priorities come in their natural
 * order with zeros kept, days in calendar order (every day of the span, zeros kept, in `timeZone`),
 * assignees by count (most first), so a chart of them reads the same way every time.
 */
export async function countTickets(options: {
  db: Database;
  tenant: TenantKey;
  since: Date;
  now: Date;
  groupBy: ReportGroup;
  timeZone: string;
}): Promise<GroupCount[]> {
  const { db, tenant, since, now, groupBy, timeZone } = options;
  const keyOf: Record<ReportGroup, SQL<string>> = {
    status: sql<string>`${tickets.status}`,
    priority: sql<string>`${tickets.priority}`,
    assignee: sql<string>`coalesce(${tickets.assignee}, ${UNASSIGNED})`,
    day: sql<string>`to_char(${tickets.createdAt} AT TIME ZONE ${timeZone}, 'YYYY-MM-DD')`,
  };
  const rows = await db
    .select({ key: keyOf[groupBy], count: sql<number>`count(*)::int` })
    .from(tickets)
    .where(and(eq(tickets.teamId, tenant), gte(tickets.createdAt, since)))
    .groupBy(sql`1`);
  const counts = new Map(rows.map((r) => [r.key, Number(r.count)]));
  const fixed =
    groupBy === "status"
      ? TICKET_STATUSES
      : groupBy === "priority"
        ? TICKET_PRIORITIES
        : groupBy === "day"
          ? daysBetween(since, now, timeZone)
          : undefined;
  if (fixed) return fixed.map((key) => ({ key, count: counts.get(key) ?? 0 }));
  return [...counts]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
}

/** Every calendar date (YYYY-MM-DD in `timeZone`) from `since` to `now`, both included. */
export function daysBetween(since: Date, now: Date, timeZone: string): string[] {
  const fmt = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  });
  const days = new Set<string>();
  // Hourly steps: a day in a zone with DST can be 23 or 25 hours long; none is skipped.
  for (let t = since.getTime(); t < now.getTime(); t += 3_600_000) days.add(fmt.format(t));
  days.add(fmt.format(now));
  return [...days];
}
