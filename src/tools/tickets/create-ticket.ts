import { z } from "zod";
import { tenantKey } from "../../core/tenant.ts";
import { tickets } from "../../store/schema.ts";
import { defineTool } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import { attachFilesField, pickAttachments } from "./ticket-attachments.ts";
import type { TicketToolsOptions } from "./ticket-deps.ts";
import { ticketDescription, ticketPriority, ticketTitle, userRef } from "./ticket-fields.ts";
import { ticketSummary } from "./ticket-view.ts";
import { ASSIGNEE_REF_HINT, resolveAssignee, resolveUserFields } from "./user-refs.ts";

/**
 * Opens a ticket as the requester. An assignee must be a live Slack user or an enabled user group;
 * attached files must be ones shared in this conversation (kept by reference).
 */
export const createTicket = ({ db, slack }: Pick<TicketToolsOptions, "db" | "slack">) =>
  defineTool({
    name: "create_ticket",
    description:
      "Open a ticket in the team's tracker, created by the requester. Returns its number (#id). Priority defaults to medium. Can attach files shared in this conversation.",
    level: "user",
    input: z.object({
      title: ticketTitle.describe("one line saying what is wrong or needed"),
      description: ticketDescription.describe("details, steps, context").optional(),
      priority: ticketPriority.describe("default medium").optional(),
      assignee: userRef.describe(`who should handle it: ${ASSIGNEE_REF_HINT}`).optional(),
      attach_files: attachFilesField.optional(),
    }),
    examples: [{ title: "VPN down on floor 3", priority: "high", assignee: "<@U012AB3CD>" }],
    resolveArgs: (args, _run, signal) => resolveUserFields(slack, args, ["assignee"], signal, ["assignee"]),
    execute: failClosed(
      "ticket database",
      async ({ title, description, priority, assignee, attach_files }, ctx) => {
        const attachments = attach_files ? pickAttachments(attach_files, ctx.run.files, ctx.run.userId) : [];
        const assigneeId = assignee ? await resolveAssignee(slack, assignee, ctx.run.userId) : null;
        const [row] = await db
          .insert(tickets)
          .values({
            teamId: tenantKey(ctx.run.teamId),
            title,
            description: description ?? "",
            priority: priority ?? "medium",
            assignee: assigneeId,
            createdBy: ctx.run.userId,
            attachments,
          })
          .returning();
        if (!row) throw new Error("the ticket insert returned no row");
        const attached = row.attachments.map((a) => a.name);
        return { created: `#${row.id}`, ...ticketSummary(row), ...(attached.length ? { attached } : {}) };
      },
    ),
  });
