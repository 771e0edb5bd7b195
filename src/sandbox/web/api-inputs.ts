import { z } from "zod";

/** What the page may send. Ids and ts are shaped like Slack's; lengths are Slack's limits. */

const userId = z.string().regex(/^[UW][A-Z0-9]{1,20}$/, "not a user id");
const channelId = z.string().regex(/^[CDG][A-Z0-9]{1,20}$/, "not a channel id");
const ts = z.string().regex(/^\d{1,12}\.\d{6}$/, "not a message ts");

/** Slack truncates message text beyond 40,000 characters; the page refuses instead. */
export const MAX_MESSAGE_TEXT = 40_000;

export const asQuerySchema = z.object({ as: userId });

export const postMessageSchema = z.object({
  as: userId,
  channel: channelId,
  text: z.string().trim().min(1, "write something first").max(MAX_MESSAGE_TEXT),
  threadTs: ts.optional(),
});

export const blockActionSchema = z.object({
  as: userId,
  channel: channelId,
  messageTs: ts,
  actionId: z.string().min(1).max(255),
  value: z.string().max(2000).optional(),
});

export const slashCommandSchema = z.object({
  as: userId,
  channel: channelId,
  command: z.literal("/hermes").default("/hermes"),
  text: z.string().max(4000).default(""),
});

export const appHomeSchema = z.object({ as: userId });

/** A zod error as one short line: `text: write something first; channel: not a channel id`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => (i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
}
