import { HermesError } from "../../core/errors.ts";
import type { TicketStatus } from "../../store/schema.ts";

/**
 * The allowed status moves: open → in_progress | closed, in_progress → open | closed, closed → open
 * (reopen). A closed ticket is reopened before work starts again, so closed → in_progress is not a move.
 */
export const TICKET_TRANSITIONS: Readonly<Record<TicketStatus, readonly TicketStatus[]>> = {
  open: ["in_progress", "closed"],
  in_progress: ["open", "closed"],
  closed: ["open"],
};

/** Throws a sentence for the model when ticket `id` may not move from `from` to `to`. */
export function assertTransition(id: number, from: TicketStatus, to: TicketStatus): void {
  if (from === to) {
    throw new HermesError("bad_request", `Ticket #${id} is already ${from}; nothing to change.`);
  }
  const allowed = TICKET_TRANSITIONS[from];
  if (!allowed.includes(to)) {
    throw new HermesError(
      "bad_request",
      `Ticket #${id} cannot go from ${from} to ${to}; from ${from} it can go to ${allowed.join(" or ")}.`,
    );
  }
}
