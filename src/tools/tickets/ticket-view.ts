import type { tickets } from "../../store/schema.ts";
import { showAssignee } from "./user-refs.ts";

export type TicketRow = typeof tickets.$inferSelect;

/** What the model sees of a ticket in a list: compact, `#id` first, no description or comments. */
export function ticketSummary(t: TicketRow) {
  return {
    ticket: `#${t.id}`,
    title: t.title,
    status: t.status,
    priority: t.priority,
    assignee: showAssignee(t.assignee),
    created_by: t.createdBy,
    created_at: iso(t.createdAt),
  };
}

/** A single ticket in full: the summary plus description, last update and comments. */
export function ticketDetail(t: TicketRow) {
  return {
    ...ticketSummary(t),
    description: t.description,
    updated_at: iso(t.updatedAt),
    comments: t.comments,
  };
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
