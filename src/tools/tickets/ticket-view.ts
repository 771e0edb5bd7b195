import type { TicketAttachment, tickets } from "../../store/schema.ts";
import { fileSize } from "./file-size.ts";
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

/** A single ticket in full: the summary plus description, last update, comments and attachments. */
export function ticketDetail(t: TicketRow) {
  return {
    ...ticketSummary(t),
    description: t.description,
    updated_at: iso(t.updatedAt),
    comments: t.comments,
    attachments: t.attachments.map(attachmentView),
  };
}

/** An attached file as a person reads it: name, type, size in human units, and where to open it. */
export function attachmentView(a: TicketAttachment) {
  return {
    name: a.name,
    type: a.mime,
    size: fileSize(a.size),
    ...(a.permalink ? { permalink: a.permalink } : {}),
  };
}

const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
