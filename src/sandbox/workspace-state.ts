import type { AssistantThread } from "./assistant-threads.ts";
import type {
  SandboxChannel,
  SandboxFileInfo,
  SandboxMessage,
  SandboxUser,
  SandboxView,
} from "./workspace-types.ts";

/**
 * What a sandbox workspace keeps across restarts: people, channels, messages with their threads (not
 * ephemerals: Slack drops those on reload too), files (their bytes stored apart), App Home views,
 * 👍/👎 selections and assistant threads. `lastTs` is the newest ts ever handed out, so a restored
 * workspace never hands out an old one again.
 */
export interface WorkspaceState {
  version: 1;
  lastTs: string;
  users: SandboxUser[];
  channels: SandboxChannel[];
  /** Every channel's messages, each channel's in its order (a message names its channel). */
  messages: SandboxMessage[];
  files: SandboxFileInfo[];
  views: { user: string; view: SandboxView }[];
  feedback: FeedbackSelection[];
  assistantThreads: AssistantThread[];
}

/** The 👍/👎 values one person has selected on one message, by `action_id`. */
export interface FeedbackSelection {
  channel: string;
  ts: string;
  user: string;
  selected: Record<string, string>;
}

/**
 * One change to a workspace, as its journal records it: the record as it is after the change (so
 * replaying a change twice gives the same workspace).
 */
export type WorkspaceChange =
  | { kind: "user"; user: SandboxUser }
  | { kind: "channel"; channel: SandboxChannel }
  | { kind: "message"; message: SandboxMessage }
  | { kind: "message_removed"; channel: string; ts: string }
  /** A file's record; `bytes` only when its bytes just arrived (the journal stores them apart). */
  | { kind: "file"; file: SandboxFileInfo; bytes?: Buffer }
  | { kind: "view"; user: string; view: SandboxView }
  | { kind: "feedback"; selection: FeedbackSelection }
  | { kind: "assistant_thread"; thread: AssistantThread };

export type WorkspaceRecorder = (change: WorkspaceChange) => void;
