import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { z } from "zod";
import { HermesError } from "../../core/errors.ts";
import { tenantKey } from "../../core/tenant.ts";
import { and, eq, isNull, type SQL, sql } from "../../store/drizzle.ts";
import { type TicketComment, tickets } from "../../store/schema.ts";
import { defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import { loadTicket, ticketOf } from "./load-ticket.ts";
import { mayUpdateTicket } from "./may-update-ticket.ts";
import {
  appendAttachments,
  attachFilesField,
  newAttachments,
  pickAttachments,
} from "./ticket-attachments.ts";
import type { TicketToolsOptions } from "./ticket-deps.ts";
import { ticketId, ticketPriority, ticketStatus, userRef } from "./ticket-fields.ts";
import { assertTransition } from "./ticket-status.ts";
import { ticketSummary } from "./ticket-view.ts";
import {
  ASSIGNEE_REF_HINT,
  isNoUserRef,
  resolveAssignee,
  resolveUserFields,
  showAssignee,
} from "./user-refs.ts";

/**
 * Changes status, priority or assignee, and/or adds a comment or files shared in this conversation.
 * The requester must be the ticket's creator or assignee, or an admin (checked here in code, from the
 * stored ticket). The write is conditional on the status and assignee it was checked against, so a
 * concurrent change is refused rather than overwritten; a file attached meanwhile is kept once.
 */
export const updateTicket = ({ db, slack, isAdmin }: TicketToolsOptions) =>
  defineTool({
    name: "update_ticket",
    description:
      "Change a ticket's status, priority or assignee, and/or add a comment or attach files shared in this conversation. Allowed for its creator, its assignee, or an admin. Status moves: open→in_progress|closed, in_progress→open|closed, closed→open.",
    level: "user",
    input: z.object({
      id: ticketId,
      status: ticketStatus.optional(),
      priority: ticketPriority.optional(),
      assignee: userRef.describe(`${ASSIGNEE_REF_HINT}; or "none" to unassign`).optional(),
      comment: z.string().trim().min(1).max(2000).describe("a note added to the ticket's history").optional(),
      attach_files: attachFilesField.optional(),
    }),
    examples: [{ id: 42, status: "closed", comment: "Replaced the toner." }],
    resolveArgs: (args, _run, signal) => resolveUserFields(slack, args, ["assignee"], signal, ["assignee"]),
    execute: failClosed(
      "ticket database",
      async ({ id, status, priority, assignee, comment, attach_files }, ctx) => {
        const me = ctx.run.userId;
        const tenant = tenantKey(ctx.run.teamId);
        if (!status && !priority && assignee === undefined && !comment && !attach_files) {
          throw new HermesError(
            "bad_request",
            `Nothing to update on ticket #${id}: give status, priority, assignee, comment or attach_files.`,
          );
        }
        const ticket = await loadTicket(db, tenant, id);
        if (!(await mayUpdateTicket({ ticket, userId: me, isAdmin }))) {
          throw new HermesError(
            "permission_denied",
            `Only the ticket's creator, its assignee or an admin may update ticket #${id}.`,
          );
        }
        if (status) assertTransition(id, ticket.status, status);
        const attaching = attach_files ? pickAttachments(attach_files, ctx.run.files, me) : [];

        const set: PgUpdateSetSource<typeof tickets> = {};
        const changes: string[] = [];
        if (status) {
          set.status = status;
          changes.push(`status ${ticket.status} → ${status}`);
        }
        if (priority && priority !== ticket.priority) {
          set.priority = priority;
          changes.push(`priority ${ticket.priority} → ${priority}`);
        }
        if (assignee !== undefined) {
          const next = isNoUserRef(assignee) ? null : await resolveAssignee(slack, assignee, me);
          if (next !== ticket.assignee) {
            set.assignee = next;
            changes.push(
              `assignee ${showAssignee(ticket.assignee) ?? "none"} → ${showAssignee(next) ?? "none"}`,
            );
          }
        }
        if (comment) {
          const entry: TicketComment = { by: me, at: new Date().toISOString(), text: comment };
          set.comments = sql`${tickets.comments} || ${JSON.stringify([entry])}::jsonb`;
          changes.push("comment added");
        }
        const fresh = newAttachments(ticket.attachments, attaching);
        if (fresh.length > 0) {
          set.attachments = appendAttachments(fresh);
          changes.push(`attached ${fresh.map((a) => a.name).join(", ")}`);
        }
        const already = attaching.filter((a) => !fresh.includes(a)).map((a) => a.name);
        if (changes.length === 0) {
          throw new HermesError(
            "bad_request",
            already.length
              ? `Nothing changed: ticket #${id} already has ${already.join(", ")} attached.`
              : `Nothing changed: ticket #${id} already has those values.`,
          );
        }
        set.updatedAt = sql`now()`;

        const sameAssignee: SQL = ticket.assignee
          ? eq(tickets.assignee, ticket.assignee)
          : isNull(tickets.assignee);
        const [row] = await db
          .update(tickets)
          .set(set)
          .where(and(ticketOf(tenant, id), eq(tickets.status, ticket.status), sameAssignee))
          .returning();
        if (!row) {
          // Deleted or changed since it was read: say which, and let the model read it again.
          await loadTicket(db, tenant, id);
          throw new HermesError(
            "bad_request",
            `Ticket #${id} was changed by someone else just now; read it again with get_ticket and retry.`,
          );
        }
        return {
          updated: `#${id}`,
          changes,
          ...(already.length ? { already_attached: already } : {}),
          ticket: ticketSummary(row),
        };
      },
    ),
  });
