import type { EntityActionButton } from "@slack/types";
import type { TicketFacts } from "./ticket-entity.ts";

/** The detail panel's buttons: each one is a call of `update_ticket` by the person who clicks it. */
export const TICKET_ACTIONS = {
  assignMe: "hermes.ticket.assign_me",
  status: "hermes.ticket.status",
  close: "hermes.ticket.close",
} as const;

export const TICKET_ACTION_IDS: readonly string[] = Object.values(TICKET_ACTIONS);

/** Where a clicked button's ticket was shown: its number and the conversation (thread) the result goes to. */
export interface TicketActionTarget {
  id: number;
  channel?: string;
  threadTs?: string;
}

/** A status move the "change status" button makes from each status (TICKET_TRANSITIONS allows each). */
const NEXT_STATUS: Record<string, { to: string; text: string }> = {
  open: { to: "in_progress", text: "Start work" },
  in_progress: { to: "open", text: "Back to open" },
  closed: { to: "open", text: "Reopen" },
};

/**
 * The buttons the panel offers for `ticket` to `userId`: assign to me (unless already theirs), change
 * status, close (unless closed). Offered to everyone: whether the click may act is the tool's and the
 * policy's decision when it runs, exactly as for the same request in a message.
 */
export function ticketActionButtons(
  ticket: Pick<TicketFacts, "id" | "status" | "assignee">,
  userId: string,
  where: Omit<TicketActionTarget, "id">,
): EntityActionButton[] {
  const value = encodeTarget({ id: ticket.id, ...where });
  const buttons: EntityActionButton[] = [];
  if (ticket.assignee !== userId)
    buttons.push({ text: "Assign to me", action_id: TICKET_ACTIONS.assignMe, value });
  const next = NEXT_STATUS[ticket.status];
  if (next) buttons.push({ text: next.text, action_id: TICKET_ACTIONS.status, value: `${value}|${next.to}` });
  if (ticket.status !== "closed")
    buttons.push({ text: "Close", action_id: TICKET_ACTIONS.close, value, style: "danger" });
  return buttons;
}

/** `12;C0OPS;1700000000.000100`, and `|in_progress` for a status move. */
function encodeTarget(t: TicketActionTarget): string {
  return [t.id, t.channel ?? "", t.threadTs ?? ""].join(";");
}

/** A click's ticket, conversation and (status button) new status; undefined for a value not made here. */
export function decodeAction(
  value: string | undefined,
): (TicketActionTarget & { status?: string }) | undefined {
  const m = /^(\d{1,10});([A-Z0-9]*);(\d+\.\d+)?(?:\|([a-z_]+))?$/.exec(value ?? "");
  if (!m) return undefined;
  const id = Number(m[1]);
  if (!(id > 0 && id <= 2_147_483_647)) return undefined;
  return {
    id,
    ...(m[2] ? { channel: m[2] } : {}),
    ...(m[3] ? { threadTs: m[3] } : {}),
    ...(m[4] ? { status: m[4] } : {}),
  };
}

/** The `update_ticket` arguments a click asks for, and what the thread is told was chosen. */
export function toolCallOf(
  actionId: string,
  target: TicketActionTarget & { status?: string },
): { args: Record<string, unknown>; chosen: string } | undefined {
  switch (actionId) {
    case TICKET_ACTIONS.assignMe:
      return { args: { id: target.id, assignee: "me" }, chosen: "Assign to me" };
    case TICKET_ACTIONS.close:
      return { args: { id: target.id, status: "closed" }, chosen: "Close" };
    case TICKET_ACTIONS.status:
      return target.status
        ? { args: { id: target.id, status: target.status }, chosen: `Status → ${target.status}` }
        : undefined;
    default:
      return undefined;
  }
}
