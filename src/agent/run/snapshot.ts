import type { RunIdentity } from "../../core/run-identity.ts";
import type { ChatMessage, Usage } from "../context/messages.ts";

/**
 * The shape `RunSnapshot` has now. A change to it that an older release could not read (or that
 * this one could not read from an older) bumps it; `parseRunSnapshot` refuses any other version.
 */
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
  /** The run went on with the fallback model from this step (absent: the primary throughout). */
  fallback?: FallbackSwitch;
}

/** A call waiting for a human decision. */
export interface PendingCall {
  callId: string;
  tool: string;
  args: Record<string, unknown>;
  argsSha256: string;
  reason?: string;
  /** The tool's definition when the call was carded; absent in snapshots written before it was kept. */
  definition?: string;
}

/** The run's switch to the fallback model: which model, why, and at which step. */
export interface FallbackSwitch {
  model: string;
  from: string;
  reason: "primary_unavailable" | "unreadable_output";
  step: number;
}

/** A human's decision on one pending call. `argsSha256` is what the approval was bound to. */
export interface Decision {
  status: "approved" | "rejected" | "expired";
  by?: string;
  argsSha256?: string;
}

/**
 * Stores a running run's state (its `pending` is empty): after each model step and after each step's
 * calls. A worker that dies is continued from the last one (`continueRun`), so a step already done is
 * not asked of the model again. Throws when the state cannot be kept: the run must then stop before
 * anything else happens (no tool runs without a checkpoint that knows about its call).
 */
export type Checkpoint = (snapshot: RunSnapshot) => Promise<void>;

/**
 * What became of a call a dead worker left without a result in its checkpoint, as the audit log says:
 * never requested (safe to handle now), an outcome that was recorded (its result), or requested with
 * no outcome (interrupted: it may or may not have taken effect, so it is never run again blindly).
 */
export type SettledCall =
  | { kind: "not_started" }
  | { kind: "result"; content: string; failed: boolean }
  | { kind: "interrupted" };
