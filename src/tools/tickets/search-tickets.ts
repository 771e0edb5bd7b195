import { z } from "zod";
import { tenantKey } from "../../core/tenant.ts";
import { and, desc, eq, isNull, type SQL, sql } from "../../store/drizzle.ts";
import { tickets } from "../../store/schema.ts";
import { defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import type { TicketToolsOptions } from "./ticket-deps.ts";
import { ticketStatus, userRef } from "./ticket-fields.ts";
import { ticketSummary } from "./ticket-view.ts";
import {
  ASSIGNEE_REF_HINT,
  isNoUserRef,
  parseUserFilter,
  resolveUserFields,
  USER_REF_HINT,
} from "./user-refs.ts";

/** `\`, `%` and `_` are LIKE's own characters (backslash is Postgres' default escape). */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Each whitespace-separated word of the query must occur in `search_text` (lower-cased title +
 * description). A substring match, so unspaced Chinese ("打印机") is found inside a longer title.
 */
export function ticketTextMatch(query: string): SQL | undefined {
  const words = query.split(/\s+/).filter(Boolean);
  const parts = words.map((w) => sql`${tickets.searchText} LIKE '%' || lower(${escapeLike(w)}) || '%'`);
  return parts.length ? and(...parts) : undefined;
}

/** Finds tickets by words in title or description, status, assignee or creator; newest first. */
export const searchTickets = ({ db, slack }: Pick<TicketToolsOptions, "db" | "slack">) =>
  defineTool({
    name: "search_tickets",
    description:
      "Search tickets by words in the title or description (English or Chinese), and/or by status, assignee or creator. Newest first.",
    level: "viewer",
    idempotent: true,
    retries: 1,
    input: z.object({
      query: z
        .string()
        .trim()
        .max(200)
        .describe("words that must all appear, e.g. 'vpn' or '打印机'")
        .optional(),
      status: ticketStatus.optional(),
      assignee: userRef.describe(`${ASSIGNEE_REF_HINT}; or "none" for unassigned tickets`).optional(),
      created_by: userRef.describe(USER_REF_HINT).optional(),
      limit: z.number().int().min(1).max(50).describe("default 10, at most 50").optional(),
    }),
    examples: [{ query: "printer", status: "open" }, { assignee: "me" }],
    resolveArgs: (args, _run, signal) =>
      resolveUserFields(slack, args, ["assignee", "created_by"], signal, ["assignee"]),
    execute: failClosed(
      "ticket database",
      async ({ query, status, assignee, created_by, limit = 10 }, ctx) => {
        const me = ctx.run.userId;
        const where = and(
          // Only this team's tickets, whatever else the search says.
          eq(tickets.teamId, tenantKey(ctx.run.teamId)),
          query ? ticketTextMatch(query) : undefined,
          status ? eq(tickets.status, status) : undefined,
          assignee === undefined
            ? undefined
            : isNoUserRef(assignee)
              ? isNull(tickets.assignee)
              : eq(tickets.assignee, parseUserFilter(assignee, me, "assignee")),
          created_by ? eq(tickets.createdBy, parseUserFilter(created_by, me, "created_by")) : undefined,
        );
        const rows = await db
          .select()
          .from(tickets)
          .where(where)
          .orderBy(desc(tickets.teamId), desc(tickets.id))
          .limit(limit + 1);
        const found = rows.slice(0, limit).map(ticketSummary);
        if (found.length === 0) return { count: 0, tickets: [], note: "No tickets match." };
        return { count: found.length, more: rows.length > limit, tickets: found };
      },
    ),
  });
