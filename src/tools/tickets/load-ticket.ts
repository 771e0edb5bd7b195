import { HermesError } from "../../core/errors.ts";
import type { Database, Transaction } from "../../store/db.ts";
import { eq } from "../../store/drizzle.ts";
import { tickets } from "../../store/schema.ts";
import type { TicketRow } from "./ticket-view.ts";

/** The ticket, or a `not_found` error the model can repeat ("There is no ticket #42."). */
export async function loadTicket(
  db: Database | Transaction,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<TicketRow> {
  const query = db.select().from(tickets).where(eq(tickets.id, id));
  const [row] = options.forUpdate ? await query.for("update") : await query;
  if (!row) throw new HermesError("not_found", `There is no ticket #${id}.`);
  return row;
}
