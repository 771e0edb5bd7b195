import { hostedFile } from "./file-objects.ts";
import { randomSlackId } from "./random-id.ts";
import type { Workspace } from "./workspace.ts";
import { fileInfo } from "./workspace-records.ts";
import type { SandboxFileInfo } from "./workspace-types.ts";

/** The sandbox keeps uploads in memory and on disk: a file may hold at most this many bytes. */
export const MAX_USER_FILE_BYTES = 10 * 1024 * 1024;
/** Slack attaches at most ten files to one message. */
export const MAX_FILES_PER_MESSAGE = 10;

/** A file a person attaches to a message. */
export interface UserFile {
  name: string;
  bytes: Buffer | Uint8Array;
  title?: string;
}

/** Why these attachments cannot be posted, in a sentence a person can act on; undefined when they can. */
export function whyRefused(files: readonly UserFile[]): string | undefined {
  if (files.length > MAX_FILES_PER_MESSAGE)
    return `A message can carry at most ${MAX_FILES_PER_MESSAGE} files; remove ${files.length - MAX_FILES_PER_MESSAGE}.`;
  for (const f of files) {
    if (!f.name.trim()) return "Every file needs a name.";
    if (f.bytes.length === 0) return `${f.name} is empty.`;
    if (f.bytes.length > MAX_USER_FILE_BYTES)
      return `${f.name} is larger than ${MAX_USER_FILE_BYTES / 1024 / 1024} MB, the sandbox's limit per file.`;
  }
  return undefined;
}

/**
 * Stores a person's attachments in the workspace (bytes kept, and journaled when the workspace is
 * persisted) and shares each into `channel`, as Slack's client does before it posts the message.
 * Throws on files `whyRefused` names.
 */
export function storeUserFiles(
  workspace: Workspace,
  o: { user: string; channel: string; origin: string; files: readonly UserFile[] },
): SandboxFileInfo[] {
  const refused = whyRefused(o.files);
  if (refused) throw new Error(refused);
  return o.files.map((f) => {
    const file = hostedFile({
      id: randomSlackId("F"),
      name: f.name.trim(),
      ...(f.title ? { title: f.title } : {}),
      user: o.user,
      created: Math.floor(workspace.now() / 1000),
      origin: o.origin,
      bytes: Buffer.from(f.bytes),
    });
    workspace.addFile(file);
    return workspace.shareFile(file.id, o.channel) ?? fileInfo(file);
  });
}
