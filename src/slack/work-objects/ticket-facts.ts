import type { TenantKey } from "../../core/tenant.ts";
import type { Database } from "../../store/db.ts";
import { and, eq } from "../../store/drizzle.ts";
import { tickets } from "../../store/schema.ts";
import type { TicketFacts } from "./ticket-entity.ts";

/**
 * A stored ticket of this team as a Work Object shows it, or undefined when this team has no such
 * ticket (another team's reads as missing).
 */
export async function loadTicketFacts(
  db: Database,
  tenant: TenantKey,
  id: number,
): Promise<TicketFacts | undefined> {
  const [row] = await db
    .select()
    .from(tickets)
    .where(and(eq(tickets.teamId, tenant), eq(tickets.id, id)));
  if (!row) return undefined;
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    priority: row.priority,
    assignee: row.assignee,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.description ? { description: row.description } : {}),
  };
}
