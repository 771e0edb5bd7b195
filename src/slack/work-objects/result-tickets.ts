import type { EntityMetadata } from "@slack/types";
import type { ChatMessage } from "../../agent/context/messages.ts";
import { type TicketFacts, ticketEntity } from "./ticket-entity.ts";
import type { TicketLinks } from "./ticket-links.ts";

/** The ticket tools whose results show one ticket, and where in the result that ticket is. */
const TICKET_RESULTS: Readonly<Record<string, (r: Record<string, unknown>) => unknown>> = {
  create_ticket: (r) => r,
  get_ticket: (r) => r,
  update_ticket: (r) => r.ticket,
};

/** Slack shows a handful of Work Objects on one message; an answer about more lists them as text. */
export const MAX_ENTITIES = 5;

/**
 * The tickets a turn created, read or updated, as Work Objects for its answer: taken from this turn's
 * tool results (after its last user message), one per ticket in its latest state, in the order they
 * were first touched. A result that is not a ticket (an error, a capped result) adds nothing.
 */
export function ticketEntitiesOf(messages: readonly ChatMessage[], links: TicketLinks): EntityMetadata[] {
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const byId = new Map<number, TicketFacts>();
  for (const m of messages.slice(lastUser + 1)) {
    if (m.role !== "tool") continue;
    const pick = TICKET_RESULTS[m.name];
    const facts = pick ? factsOf(pick(parseObject(m.content) ?? {})) : undefined;
    if (facts) byId.set(facts.id, facts);
  }
  return [...byId.values()].slice(0, MAX_ENTITIES).map((t) => ticketEntity(t, links));
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A ticket view (`ticketSummary` / `ticketDetail`) read back: `#id`, title, status, priority, people. */
function factsOf(v: unknown): TicketFacts | undefined {
  if (!v || typeof v !== "object") return undefined;
  const r = v as Record<string, unknown>;
  const id = typeof r.ticket === "string" ? /^#(\d{1,10})$/.exec(r.ticket)?.[1] : undefined;
  if (!id || typeof r.title !== "string" || typeof r.status !== "string" || typeof r.priority !== "string")
    return undefined;
  const assignee = typeof r.assignee === "string" ? idOfMention(r.assignee) : null;
  return {
    id: Number(id),
    title: r.title,
    status: r.status,
    priority: r.priority,
    assignee,
    ...(typeof r.created_by === "string" ? { createdBy: r.created_by } : {}),
    ...(dateOf(r.created_at) ? { createdAt: dateOf(r.created_at) } : {}),
    ...(dateOf(r.updated_at) ? { updatedAt: dateOf(r.updated_at) } : {}),
  };
}

/** `U…`, or a group shown as `<!subteam^S…>`. */
const idOfMention = (s: string) => /^<!subteam\^(S[A-Z0-9]+)>$/.exec(s)?.[1] ?? s;

function dateOf(v: unknown): Date | undefined {
  if (typeof v !== "string") return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}
