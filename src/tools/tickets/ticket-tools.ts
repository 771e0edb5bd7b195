import type { Tool } from "../define-tool.ts";
import { createTicket } from "./create-ticket.ts";
import { deleteTicket } from "./delete-ticket.ts";
import { getTicket } from "./get-ticket.ts";
import { searchTickets } from "./search-tickets.ts";
import type { TicketToolsOptions } from "./ticket-deps.ts";
import { updateTicket } from "./update-ticket.ts";

export type { TicketToolsOptions } from "./ticket-deps.ts";

/** The five ticket tools over Postgres `tickets`: create, get, search, update, delete. */
export function createTicketTools(options: TicketToolsOptions): Tool[] {
  return [
    createTicket(options),
    getTicket(options),
    searchTickets(options),
    updateTicket(options),
    deleteTicket(options),
  ];
}
