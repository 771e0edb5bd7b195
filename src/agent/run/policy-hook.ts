import type { PermissionLevel } from "../../core/permission-levels.ts";
import type { RunIdentity } from "../../core/run-identity.ts";
import type { Tool } from "../../tools/define-tool.ts";
import type { ToolCall } from "../context/messages.ts";

export interface PolicyInput {
  tool: Tool;
  args: Record<string, unknown>;
  call: ToolCall;
  run: RunIdentity;
  /** True when re-checked at resume for a call a human approved. */
  approved?: boolean;
  /**
   * Whether the model had seen untrusted content in this run when it made the call (see
   * `CallContext`); absent counts as seen.
   */
  untrustedSeen?: boolean;
}

export type PolicyDecision =
  | { action: "allow" }
  | { action: "deny"; reason: string }
  | { action: "needs_approval"; reason?: string };

/** Asked before every execution (and again at resume). The model's choice never grants anything. */
export type PolicyHook = (input: PolicyInput) => PolicyDecision | Promise<PolicyDecision>;

/** Tool lifecycle events the runtime reports (the audit log records them). */
export type ToolEventAction = "tool.requested" | "tool.denied" | "tool.executed" | "tool.failed";

export interface ToolEvent {
  action: ToolEventAction;
  run: RunIdentity;
  callId: string;
  tool: string;
  args: unknown;
  argsSha256: string;
  reason?: string;
  error?: string;
  resultSummary?: string;
  durationMs?: number;
}

/** Awaited: a `tool.requested` that cannot be recorded means the call does not run (fail closed). */
export type ToolEventSink = (event: ToolEvent) => Promise<void>;

/** A tool-specific check that only code can make (e.g. "is the requester in that channel?"). */
export type PolicyGuard = (input: {
  args: Record<string, unknown>;
  run: RunIdentity;
}) => Promise<string | undefined> | string | undefined;

/** A requester's access, read fresh for each turn, resume and click (`policy/resolve-access.ts`). */
export interface Access {
  userId: string;
  level: PermissionLevel;
  /** Tool names this user may call: the model sees only these. */
  allowed: Set<string>;
  policy: PolicyHook;
}
