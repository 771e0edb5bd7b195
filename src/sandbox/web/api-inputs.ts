import { z } from "zod";
import { SAMPLE_FILE_NAMES } from "../sample-files.ts";
import { MAX_FILES_PER_MESSAGE } from "../user-files.ts";

/** What the page may send. Ids and ts are shaped like Slack's; lengths are Slack's limits. */

const userId = z.string().regex(/^[UW][A-Z0-9]{1,20}$/, "not a user id");
const channelId = z.string().regex(/^[CDG][A-Z0-9]{1,20}$/, "not a channel id");
const ts = z.string().regex(/^\d{1,12}\.\d{6}$/, "not a message ts");

/** Slack truncates message text beyond 40,000 characters; the page refuses instead. */
export const MAX_MESSAGE_TEXT = 40_000;

/** What the files of one message may add up to. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
/** A message post with files: base64 makes 3 bytes 4, plus the text and names. */
export const MAX_MESSAGE_BODY_BYTES = Math.ceil((MAX_ATTACHMENT_BYTES * 4) / 3) + 256 * 1024;

export const asQuerySchema = z.object({ as: userId });

/**
 * A file attached in the composer: its name and bytes (base64), or one of the demo's sample files by
 * name. Sizes are checked once decoded (`user-files.ts`).
 */
const attachment = z.union([
  z.object({
    name: z.string().trim().min(1, "a file needs a name").max(255),
    data: z.base64("not base64 data"),
    title: z.string().trim().max(255).optional(),
  }),
  z.object({ sample: z.enum(SAMPLE_FILE_NAMES) }),
]);

export type PageAttachment = z.output<typeof attachment>;

export const postMessageSchema = z
  .object({
    as: userId,
    channel: channelId,
    text: z.string().trim().max(MAX_MESSAGE_TEXT).default(""),
    threadTs: ts.optional(),
    files: z
      .array(attachment)
      .max(MAX_FILES_PER_MESSAGE, `at most ${MAX_FILES_PER_MESSAGE} files per message`)
      .optional(),
  })
  .refine((m) => m.text.length > 0 || (m.files?.length ?? 0) > 0, {
    path: ["text"],
    message: "write something first",
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
