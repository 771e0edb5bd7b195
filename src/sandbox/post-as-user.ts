import { randomUUID } from "node:crypto";
import { richTextBlocks } from "./rich-text.ts";
import type { Workspace } from "./workspace.ts";
import type { SandboxMessage } from "./workspace-types.ts";

export interface UserPost {
  user: string;
  channel: string;
  text: string;
  /** Reply in this thread. */
  threadTs?: string;
}

/** What a person typing in a Slack client produces: a message with `client_msg_id` and rich_text blocks. */
export function postAsUser(
  workspace: Workspace,
  { user, channel, text, threadTs }: UserPost,
): SandboxMessage {
  return workspace.post({
    channel,
    user,
    text,
    blocks: richTextBlocks(text),
    clientMsgId: randomUUID(),
    ...(threadTs ? { threadTs } : {}),
  });
}
