import type { EntityActionButton, EntityMetadata, EntityTypedField } from "@slack/types";
import type { TicketLinks } from "./ticket-links.ts";

/** Slack's entity type for a task (`@slack/types` `EntityType.Task`). */
export const TASK_ENTITY_TYPE = "slack#/entities/task";
/** The `external_ref.type` of a Hermes ticket. */
export const TICKET_REF_TYPE = "ticket";

/** What a Work Object shows of a ticket (from a tool result or a stored row). */
export interface TicketFacts {
  id: number;
  title: string;
  status: string;
  priority: string;
  /** A user id (`U…`), a user group id (`S…`), or null when unassigned. */
  assignee: string | null;
  createdBy?: string;
  createdAt?: Date;
  updatedAt?: Date;
  description?: string;
}

const STATUS_LABEL: Record<string, string> = { open: "Open", in_progress: "In progress", closed: "Closed" };
const STATUS_COLOR: Record<string, string> = { open: "blue", in_progress: "yellow", closed: "gray" };
const PRIORITY_COLOR: Record<string, string> = { low: "gray", medium: "blue", high: "yellow", urgent: "red" };

/**
 * A ticket as a Work Object (Slack's Task entity): title, status, priority, assignee and its link;
 * `actions` add buttons (the detail panel), `appUnfurlUrl` is the link as posted (`chat.unfurl`).
 */
export function ticketEntity(
  t: TicketFacts,
  links: TicketLinks,
  options: { actions?: EntityActionButton[]; appUnfurlUrl?: string } = {},
): EntityMetadata {
  const url = links.urlOf(t.id);
  const fields = {
    status: {
      value: STATUS_LABEL[t.status] ?? t.status,
      label: "Status",
      tag_color: STATUS_COLOR[t.status] ?? "gray",
    },
    priority: { value: t.priority, label: "Priority", tag_color: PRIORITY_COLOR[t.priority] ?? "gray" },
    assignee: personField(t.assignee, "Assignee"),
    ...(t.createdBy ? { created_by: personField(t.createdBy, "Created by") } : {}),
    ...(t.createdAt ? { date_created: { value: seconds(t.createdAt), label: "Created" } } : {}),
    ...(t.updatedAt ? { date_updated: { value: seconds(t.updatedAt), label: "Updated" } } : {}),
    ...(t.description ? { description: { value: t.description, label: "Description", long: true } } : {}),
  };
  const order = [
    "status",
    "priority",
    "assignee",
    "created_by",
    "date_created",
    "date_updated",
    "description",
  ];
  return {
    entity_type: TASK_ENTITY_TYPE,
    url,
    external_ref: { id: String(t.id), type: TICKET_REF_TYPE },
    ...(options.appUnfurlUrl ? { app_unfurl_url: options.appUnfurlUrl } : {}),
    entity_payload: {
      attributes: {
        title: { text: t.title },
        display_id: `#${t.id}`,
        display_type: "Ticket",
        product_name: "Hermes",
      },
      fields,
      display_order: order.filter((k) => k in fields),
      ...(options.actions?.length ? { actions: { primary_actions: options.actions } } : {}),
    },
  };
}

/** The ticket number an entity names (its `external_ref`), if it is a Hermes ticket. */
export function ticketIdOfRef(ref: { id?: unknown; type?: unknown } | undefined): number | undefined {
  if (!ref || (ref.type !== undefined && ref.type !== TICKET_REF_TYPE)) return undefined;
  const id = typeof ref.id === "string" && /^\d{1,10}$/.test(ref.id) ? Number(ref.id) : Number.NaN;
  return Number.isInteger(id) && id > 0 && id <= 2_147_483_647 ? id : undefined;
}

function personField(id: string | null, label: string): EntityTypedField {
  if (!id) return { type: "string", label, value: "Unassigned" };
  if (id.startsWith("U") || id.startsWith("W"))
    return { type: "slack#/types/user", label, user: { user_id: id } };
  return { type: "string", label, value: id.startsWith("S") ? `<!subteam^${id}>` : id };
}

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
