import { HermesError } from "../../core/errors.ts";
import type { TenantKey } from "../../core/tenant.ts";
import type { Database, Transaction } from "../../store/db.ts";
import { and, eq } from "../../store/drizzle.ts";
import { tickets } from "../../store/schema.ts";
import type { TicketRow } from "./ticket-view.ts";

/**
 * The ticket of this tenant, or a `not_found` error the model can repeat ("There is no ticket #42."):
 * another team's ticket is read exactly as a missing one (one statement, the same sentence).
 */
export async function loadTicket(
  db: Database | Transaction,
  tenant: TenantKey,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<TicketRow> {
  const query = db.select().from(tickets).where(ticketOf(tenant, id));
  const [row] = options.forUpdate ? await query.for("update") : await query;
  if (!row) throw new HermesError("not_found", `There is no ticket #${id}.`);
  return row;
}

/** The one ticket `id` of this tenant: every read and write of a ticket by id goes through it. */
export const ticketOf = (tenant: TenantKey, id: number) =>
  and(eq(tickets.teamId, tenant), eq(tickets.id, id));
