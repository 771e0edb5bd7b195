/** Plain data held by the sandbox workspace, shaped like the objects Slack's Web API returns. */

export interface SandboxTeam {
  id: string;
  name: string;
  domain: string;
  /** The Enterprise org the workspace belongs to, if any. */
  enterpriseId?: string;
}

export interface SandboxUserProfile {
  display_name: string;
  real_name: string;
  image_48: string;
  /** Two letters for an avatar when there is no image (the web page draws them). */
  initials: string;
  /** Set on the bot user's profile, as Slack does. */
  bot_id?: string;
}

export interface SandboxUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  tz: string;
  is_admin: boolean;
  is_bot: boolean;
  deleted: boolean;
  profile: SandboxUserProfile;
}

export interface SandboxChannel {
  id: string;
  /** Empty for direct messages. */
  name: string;
  is_channel: boolean;
  is_im: boolean;
  is_private: boolean;
  /** For a DM: the human on the other side. */
  user?: string;
  members: string[];
  created: number;
  /** What the channel says about itself (`topic.value`, `purpose.value`); empty when unset. */
  topic?: string;
  purpose?: string;
}

/** A file as Slack lists it (in `files.info`, or in a message's `files`). */
export interface SandboxFileInfo {
  id: string;
  name: string;
  title: string;
  mimetype: string;
  filetype: string;
  size: number;
  uploaded: boolean;
  user: string;
  created: number;
  alt_text?: string;
  /** Absolute URLs served by the emulator. */
  url_private: string;
  url_private_download: string;
  permalink: string;
  /** Every conversation the file is shared in (`files.info` splits them into channels, groups, ims). */
  channels: string[];
  /** Slack's name for the type ("PNG", "PDF", "CSV"); set on every file made now. */
  pretty_type?: string;
  /** Always `"hosted"` and `false`: the bytes live in this workspace. */
  mode?: "hosted";
  is_external?: false;
  /** Images: their size and thumbnails (the same bytes, at URLs shaped like Slack's). */
  original_w?: number;
  original_h?: number;
  thumb_64?: string;
  thumb_80?: string;
  thumb_160?: string;
  thumb_360?: string;
  thumb_360_w?: number;
  thumb_360_h?: number;
}

export interface SandboxFile extends SandboxFileInfo {
  /** The uploaded bytes; empty until the upload URL received them. */
  bytes: Buffer;
}

export interface SandboxMessage {
  type: "message";
  ts: string;
  channel: string;
  team: string;
  text: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  subtype?: string;
  blocks?: unknown[];
  thread_ts?: string;
  reply_count?: number;
  reply_users?: string[];
  latest_reply?: string;
  edited?: { user: string; ts: string };
  files?: SandboxFileInfo[];
  parent_user_id?: string;
  hidden?: boolean;
  client_msg_id?: string;
  /** On a person's message with files (`subtype: "file_share"`), as Slack marks it. */
  upload?: boolean;
  display_as_bot?: boolean;
  /** Set on ephemeral messages: the only user who sees it. Never returned by history/replies. */
  ephemeral_for?: string;
  metadata?: unknown;
  /** A message written with chat.startStream: its task cards and whether it still takes appends. */
  stream?: StreamState;
}

/** One task card of a streamed message (a `task_update` chunk, updated in place by its id). */
export interface StreamTask {
  id: string;
  title: string;
  status: "pending" | "in_progress" | "complete" | "error";
  details?: string;
  output?: string;
}

export interface StreamState {
  state: "streaming" | "stopped";
  task_display_mode: "timeline" | "plan";
  tasks: StreamTask[];
  plan_title?: string;
}

export interface SandboxView {
  id: string;
  team_id: string;
  type: string;
  blocks: unknown[];
  private_metadata: string;
  callback_id: string;
  external_id: string;
  hash: string;
  app_id: string;
  bot_id: string;
  [key: string]: unknown;
}

/** What the workspace tells subscribers (the web page streams these). */
export type WorkspaceEvent =
  | { type: "message_posted"; channel: string; message: SandboxMessage }
  | { type: "message_updated"; channel: string; message: SandboxMessage; previous: SandboxMessage }
  | { type: "message_deleted"; channel: string; ts: string; message: SandboxMessage }
  | { type: "ephemeral_posted"; channel: string; user: string; message: SandboxMessage }
  | { type: "file_uploaded"; file: SandboxFileInfo }
  | { type: "view_published"; user: string; view: SandboxView }
  /** `user` selected or unselected a 👍/👎 side on a message (only what their client shows). */
  | { type: "feedback_selected"; channel: string; ts: string; user: string };

export type WorkspaceListener = (event: WorkspaceEvent) => void;

/** The app installed in the sandbox: its bot user, bot id and app id. */
export interface SandboxBot {
  userId: string;
  botId: string;
  appId: string;
  name: string;
}

export interface WorkspaceOptions {
  team?: SandboxTeam;
  bot?: SandboxBot;
  /** Milliseconds since the epoch; tests pin it. */
  now?: () => number;
  /** How long a streamed message takes appends (Slack ends it after about 5 minutes); tests shorten it. */
  streamMaxAgeMs?: number;
}

/** Slack ends a streaming message after about five minutes: later appends and stops are refused. */
export const STREAM_MAX_AGE_MS = 5 * 60_000;

export interface NewMessage {
  channel: string;
  text: string;
  user?: string;
  botId?: string;
  blocks?: unknown[];
  /** Makes it a reply; a reply's ts counts as its thread. Unknown threads are ignored. */
  threadTs?: string;
  files?: SandboxFileInfo[];
  subtype?: string;
  clientMsgId?: string;
  /** A person's upload: the message gets `upload: true, display_as_bot: false`. */
  upload?: boolean;
  metadata?: unknown;
  stream?: StreamState;
}

export interface MessagePatch {
  text?: string;
  blocks?: unknown[];
  /** Replaces the message's metadata (Bolt keeps an assistant thread's context there). */
  metadata?: unknown;
  editedBy?: string;
  stream?: StreamState;
}

export const DEFAULT_TEAM: SandboxTeam = { id: "T0001", name: "Acme", domain: "acme" };
export const DEFAULT_BOT: SandboxBot = {
  userId: "U0HERMES",
  botId: "B0HERMES",
  appId: "A0HERMES1",
  name: "hermes",
};
