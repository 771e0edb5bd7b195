import type { Database } from "../../store/db.ts";
import { eq } from "../../store/drizzle.ts";
import { tickets } from "../../store/schema.ts";
import type { TicketFacts } from "./ticket-entity.ts";

/** A stored ticket as a Work Object shows it, or undefined when there is no such ticket. */
export async function loadTicketFacts(db: Database, id: number): Promise<TicketFacts | undefined> {
  const [row] = await db.select().from(tickets).where(eq(tickets.id, id));
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
