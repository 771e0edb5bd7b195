import { z } from "zod";
import { TICKET_PRIORITIES, TICKET_STATUSES } from "../../store/schema.ts";

/** Input fields shared by the ticket tools. Limits keep one ticket from filling the context. */
export const ticketId = z
  .number()
  .int()
  .positive()
  .max(2_147_483_647)
  .describe("the ticket number, e.g. 42 for #42");
export const ticketStatus = z.enum(TICKET_STATUSES);
export const ticketPriority = z.enum(TICKET_PRIORITIES);
export const userRef = z.string().trim().min(1).max(64);
export const ticketTitle = z.string().trim().min(1).max(200);
export const ticketDescription = z.string().trim().max(4000);
