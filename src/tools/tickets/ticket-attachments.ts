import { z } from "zod";
import { HermesError } from "../../core/errors.ts";
import type { ThreadFile } from "../../core/run-identity.ts";
import { type SQL, sql } from "../../store/drizzle.ts";
import { type TicketAttachment, tickets } from "../../store/schema.ts";

/**
 * Which files of the conversation to attach: "all", one name or id, or a list of them. A single
 * string is accepted as well as a list, since models often write one file that way.
 */
export const attachFilesField = z
  .union([z.string().trim().min(1).max(255), z.array(z.string().trim().min(1).max(255)).min(1).max(20)])
  .describe(
    'files shared in this conversation to attach: "all", or their names or file ids, e.g. ["report.pdf"]',
  );

export type AttachFilesArg = z.output<typeof attachFilesField>;

const isAll = (ref: string) => ref.trim().toLowerCase() === "all";

/**
 * The conversation's files that `requested` names, as attachments added by `by` now. Each name must be
 * one of `files` (by id, or by exact name ignoring case); an unknown or ambiguous name is refused with a
 * sentence listing what can be attached. A file named twice, or shared twice, is returned once.
 */
export function pickAttachments(
  requested: AttachFilesArg,
  files: readonly ThreadFile[] | undefined,
  by: string,
  now = new Date(),
): TicketAttachment[] {
  const available = uniqueById(files ?? []);
  if (available.length === 0) {
    throw new HermesError(
      "bad_request",
      "No files were shared in this conversation, so there is nothing to attach. Ask for the file to be shared in this thread first.",
    );
  }
  const refs = typeof requested === "string" ? [requested] : requested;
  const picked = refs.some(isAll) ? available : refs.map((ref) => findFile(ref.trim(), available));
  return uniqueById(picked).map((f) => toAttachment(f, by, now));
}

/** The attachments not yet on the ticket (by file id). */
export function newAttachments(
  existing: readonly TicketAttachment[],
  adding: readonly TicketAttachment[],
): TicketAttachment[] {
  const have = new Set(existing.map((a) => a.fileId));
  return adding.filter((a) => !have.has(a.fileId));
}

function findFile(ref: string, files: readonly ThreadFile[]): ThreadFile {
  const wanted = ref.toLowerCase();
  const byId = files.find((f) => f.id.toLowerCase() === wanted);
  if (byId) return byId;
  const byName = files.filter((f) => f.name.toLowerCase() === wanted);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) {
    throw new HermesError(
      "bad_request",
      `"${ref}" names ${byName.length} files shared in this conversation (${byName.map((f) => f.id).join(", ")}); give the file id of the one to attach.`,
    );
  }
  throw new HermesError(
    "bad_request",
    `No file "${ref}" was shared in this conversation. Files that can be attached: ${files.map(fileLabel).join(", ")}; or "all".`,
  );
}

const fileLabel = (f: ThreadFile) => `${f.name} (${f.id})`;

function uniqueById<T extends { id: string }>(files: readonly T[]): T[] {
  const seen = new Set<string>();
  return files.filter((f) => !seen.has(f.id) && seen.add(f.id));
}

function toAttachment(f: ThreadFile, by: string, now: Date): TicketAttachment {
  return {
    fileId: f.id,
    name: f.name,
    mime: f.mime,
    size: f.size,
    sha256: f.sha256,
    ...(f.permalink ? { permalink: f.permalink } : {}),
    addedBy: by,
    addedAt: now.toISOString(),
  };
}

/**
 * SQL that appends `adding` to a ticket's attachments, skipping any file the stored row already
 * holds: a concurrent attach of the same file between the read and the write adds it once.
 */
export function appendAttachments(adding: readonly TicketAttachment[]): SQL {
  return sql`${tickets.attachments} || coalesce((
    SELECT jsonb_agg(a.e ORDER BY a.n) FROM jsonb_array_elements(${JSON.stringify(adding)}::jsonb) WITH ORDINALITY AS a(e, n)
    WHERE NOT ${tickets.attachments} @> jsonb_build_array(jsonb_build_object('fileId', a.e->'fileId'))
  ), '[]'::jsonb)`;
}
