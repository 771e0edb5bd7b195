import type { MessageSubtypeInput } from "./event-payloads.ts";
import type { UserFile } from "./user-files.ts";

/** What the events sender's methods take. */

type Omit2<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface UserMessageInput {
  user: string;
  channel: string;
  text: string;
  /** The message's ts; by default the workspace records the message and gives it one. */
  ts?: string;
  threadTs?: string;
  /**
   * Files the person attaches: stored in the workspace (needs the sender's `slack` option) and carried
   * by the event as Slack's file objects; a `message` event becomes `subtype: "file_share"`.
   */
  files?: readonly UserFile[];
}

export type MessageInput = Omit2<MessageSubtypeInput, "ts"> & { ts?: string };

export interface BlockActionInput {
  user: string;
  actionId: string;
  value?: string;
  channel: string;
  messageTs: string;
  blockId?: string;
  threadTs?: string;
  responseUrl?: string;
  triggerId?: string;
}

export interface SlashCommandInput {
  user: string;
  channel: string;
  command?: string;
  text?: string;
  responseUrl?: string;
  triggerId?: string;
}
