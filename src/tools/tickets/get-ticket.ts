import { z } from "zod";
import { tenantKey } from "../../core/tenant.ts";
import { defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import { loadTicket } from "./load-ticket.ts";
import type { TicketToolsOptions } from "./ticket-deps.ts";
import { ticketId } from "./ticket-fields.ts";
import { ticketDetail } from "./ticket-view.ts";

/** One ticket in full, comments included. */
export const getTicket = ({ db }: Pick<TicketToolsOptions, "db">) =>
  defineTool({
    name: "get_ticket",
    description: "Read one ticket in full (description and comments) by its number.",
    level: "viewer",
    idempotent: true,
    retries: 1,
    input: z.object({ id: ticketId }),
    examples: [{ id: 42 }],
    execute: failClosed("ticket database", async ({ id }, ctx) =>
      ticketDetail(await loadTicket(db, tenantKey(ctx.run.teamId), id)),
    ),
  });
