import { z } from "zod";

/**
 * A file a Slack message carries, as the event names it: its id, and the name, type and size Slack
 * reports. Where its bytes are is never taken from the event: `files.info` says that, for this bot.
 */
export const slackFileRefSchema = z.object({
  id: z.string().regex(/^F[A-Z0-9]{2,30}$/),
  name: z.string().max(1000),
  mimetype: z.string().max(200).optional(),
  size: z.number().int().min(0).optional(),
});
export type SlackFileRef = z.infer<typeof slackFileRefSchema>;

/** Files one message may hand a turn; Slack allows ten per message. */
export const MAX_FILES_PER_MESSAGE = 10;

/**
 * The files of a message event (`files`, Slack's file objects), as references: an entry that is not
 * a file object Hermes can name (no `F…` id) is skipped, never a crash; at most ten are taken.
 */
export function fileRefsOf(files: unknown): SlackFileRef[] {
  if (!Array.isArray(files)) return [];
  const refs: SlackFileRef[] = [];
  for (const f of files) {
    if (refs.length >= MAX_FILES_PER_MESSAGE) break;
    if (f === null || typeof f !== "object") continue;
    const o = f as Record<string, unknown>;
    const ref = slackFileRefSchema.safeParse({
      id: o.id,
      name:
        typeof o.name === "string" && o.name ? o.name : typeof o.title === "string" ? o.title : String(o.id),
      ...(typeof o.mimetype === "string" ? { mimetype: o.mimetype } : {}),
      ...(typeof o.size === "number" ? { size: o.size } : {}),
    });
    if (ref.success && !refs.some((r) => r.id === ref.data.id)) refs.push(ref.data);
  }
  return refs;
}
