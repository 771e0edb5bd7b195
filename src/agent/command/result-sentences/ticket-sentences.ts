import { type Json, plural, quoted } from "./readable-value.ts";
import { personRef, slackRefsIn } from "./slack-refs.ts";

/** A ticket as the ticket tools return it (`ticketSummary` / `ticketDetail`), read loosely. */
interface TicketView {
  ticket?: string;
  title?: string;
  status?: string;
  priority?: string;
  assignee?: string | null;
  created_by?: string;
  created_at?: string;
  description?: string;
  comments?: unknown[];
  attachments?: unknown[];
  attached?: string[];
}

const ticketOf = (value: Json): TicketView | undefined =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as TicketView) : undefined;

const assigned = (t: TicketView) =>
  t.assignee ? `assigned to ${personRef(t.assignee)}` : "assigned to nobody yet";

/** `create_ticket` → "Opened ticket #7 'VPN outage in Shanghai office' (high), assigned to nobody yet." */
export function createdSentence(value: Json): string | undefined {
  const t = ticketOf(value);
  if (!t?.ticket || !t.title) return undefined;
  const files = t.attached?.length ? `, with ${t.attached.join(", ")} attached` : "";
  return `Opened ticket ${t.ticket} ${quoted(t.title)} (${t.priority ?? "medium"}), ${assigned(t)}${files}.`;
}

/** `get_ticket` → a short card: title, status and priority, assignee, creator, attachments. */
export function ticketCard(value: Json): string | undefined {
  const t = ticketOf(value);
  if (!t?.ticket || !t.title) return undefined;
  const lines = [
    `*Ticket ${t.ticket}: ${t.title}*`,
    `Status: ${t.status ?? "unknown"} · Priority: ${t.priority ?? "unknown"}`,
  ];
  lines.push(`Assignee: ${t.assignee ? personRef(t.assignee) : "nobody yet"}`);
  const day = t.created_at ? ` on ${t.created_at.slice(0, 10)}` : "";
  lines.push(`Created by ${personRef(t.created_by)}${day}`);
  const description = t.description?.trim().split("\n", 1)[0];
  if (description)
    lines.push(`> ${description.length > 200 ? `${description.slice(0, 200)}…` : description}`);
  const files = t.attachments?.length ?? 0;
  const comments = t.comments?.length ?? 0;
  lines.push(
    `${files ? plural(files, "attachment") : "No attachments"} · ${comments ? plural(comments, "comment") : "no comments"}`,
  );
  return lines.join("\n");
}

/** `update_ticket` → "Updated ticket #7 'VPN down': status open → in_progress; comment added." */
export function updatedSentence(value: Json): string | undefined {
  const r = ticketOf(value) as
    | { updated?: string; changes?: unknown; already_attached?: unknown; ticket?: Json }
    | undefined;
  if (!r?.updated || !Array.isArray(r.changes)) return undefined;
  const t = ticketOf(r.ticket ?? null);
  const title = t?.title ? ` ${quoted(t.title)}` : "";
  const changes = r.changes.map((c) => slackRefsIn(String(c))).join("; ");
  const already =
    Array.isArray(r.already_attached) && r.already_attached.length
      ? ` (${r.already_attached.join(", ")} ${r.already_attached.length === 1 ? "was" : "were"} already attached)`
      : "";
  return `Updated ticket ${r.updated}${title}: ${changes || "nothing changed"}${already}.`;
}

/** `search_tickets` → one line per ticket, and whether there are more. */
export function searchList(value: Json): string | undefined {
  const r = ticketOf(value) as { count?: number; more?: boolean; tickets?: unknown } | undefined;
  if (!r || !Array.isArray(r.tickets)) return undefined;
  if (r.tickets.length === 0) return "No tickets match.";
  const lines = r.tickets.map((item) => {
    const t = ticketOf(item as Json) ?? {};
    const who = t.assignee ? personRef(t.assignee) : "unassigned";
    return `• ${t.ticket ?? "?"} ${t.title ?? ""} (${t.status ?? "?"}, ${t.priority ?? "?"}, ${who})`;
  });
  const head = `${plural(r.tickets.length, "ticket")} found${r.more ? " (more match: narrow the search or raise `limit`)" : ""}:`;
  return [head, ...lines].join("\n");
}
