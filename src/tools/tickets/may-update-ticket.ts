import type { TicketRow } from "./ticket-view.ts";

/**
 * May `userId` change this ticket? Its creator and its assignee may; anyone else only as an admin.
 * `isAdmin` is asked only when ownership does not already decide.
 */
export async function mayUpdateTicket({
  ticket,
  userId,
  isAdmin,
}: {
  ticket: Pick<TicketRow, "createdBy" | "assignee">;
  userId: string;
  isAdmin(userId: string): boolean | Promise<boolean>;
}): Promise<boolean> {
  if (ticket.createdBy === userId || ticket.assignee === userId) return true;
  return await isAdmin(userId);
}
