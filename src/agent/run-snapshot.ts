import type { RunIdentity } from "../tools/define-tool.ts";
import type { ChatMessage, Usage } from "./messages.ts";
import type { PendingCall } from "./run-calls.ts";

export const SNAPSHOT_VERSION = 1;

/**
 * Everything a paused run needs to continue, as plain JSON (it is stored in Postgres `runs.snapshot`).
 * `messages` ends with the assistant message whose calls are pending; results of the calls that
 * already ran (or were denied) follow it.
 */
export interface RunSnapshot {
  version: typeof SNAPSHOT_VERSION;
  run: RunIdentity;
  messages: ChatMessage[];
  pending: PendingCall[];
  step: number;
  usage: Usage;
  modelCalls: number;
  failures: Record<string, number>;
  truncations: number;
}

/** A human's decision on one pending call. `argsSha256` is what the approval was bound to. */
export interface Decision {
  status: "approved" | "rejected" | "expired";
  by?: string;
  argsSha256?: string;
}
