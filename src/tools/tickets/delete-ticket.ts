import { z } from "zod";
import { HermesError } from "../../core/errors.ts";
import { tenantKey } from "../../core/tenant.ts";
import { tickets } from "../../store/schema.ts";
import { defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import { ticketOf } from "./load-ticket.ts";
import type { TicketToolsOptions } from "./ticket-deps.ts";
import { ticketId } from "./ticket-fields.ts";

/** Deletes a ticket for good. Admins only, and a human approves each call (the runtime asks). */
export const deleteTicket = ({ db }: Pick<TicketToolsOptions, "db">) =>
  defineTool({
    name: "delete_ticket",
    description:
      "Delete a ticket permanently (admins only; a human must approve). Prefer closing it with update_ticket.",
    level: "admin",
    approval: "always",
    dangerous: true,
    input: z.object({ id: ticketId }),
    execute: failClosed("ticket database", async ({ id }, ctx) => {
      const [row] = await db
        .delete(tickets)
        .where(ticketOf(tenantKey(ctx.run.teamId), id))
        .returning({ id: tickets.id, title: tickets.title });
      if (!row) throw new HermesError("not_found", `There is no ticket #${id}.`);
      return `Deleted ticket #${row.id} "${row.title}".`;
    }),
  });
