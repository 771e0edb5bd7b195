import { randomUUID } from "node:crypto";
import { richTextBlocks } from "./rich-text.ts";
import { storeUserFiles, type UserFile } from "./user-files.ts";
import type { Workspace } from "./workspace.ts";
import type { SandboxMessage } from "./workspace-types.ts";

export interface UserPost {
  user: string;
  channel: string;
  text: string;
  /** Reply in this thread. */
  threadTs?: string;
  /** Attachments: stored and shared into the channel; the message becomes a `file_share`. */
  files?: readonly UserFile[];
  /** The emulator's address, for the files' `url_private` (required with `files`). */
  origin?: string;
}

/**
 * What a person typing in a Slack client produces: a message with `client_msg_id` and rich_text
 * blocks; with files, Slack's `subtype: "file_share"` message with `files`, `upload` and
 * `display_as_bot` (and no blocks when nothing was typed).
 */
export function postAsUser(workspace: Workspace, post: UserPost): SandboxMessage {
  const { user, channel, text, threadTs } = post;
  const attached = post.files && post.files.length > 0 ? post.files : undefined;
  if (attached && !post.origin) throw new Error("postAsUser: files need the emulator's origin.");
  const files = attached
    ? storeUserFiles(workspace, { user, channel, origin: post.origin ?? "", files: attached })
    : undefined;
  return workspace.post({
    channel,
    user,
    text,
    ...(files && !text ? {} : { blocks: richTextBlocks(text) }),
    clientMsgId: randomUUID(),
    ...(files ? { files, subtype: "file_share", upload: true } : {}),
    ...(threadTs ? { threadTs } : {}),
  });
}
