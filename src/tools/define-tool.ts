import type { z } from "zod";
import type { Logger } from "../core/logger.ts";
import type { ApproversRule, PermissionLevel } from "../core/permission-levels.ts";
import type { RunIdentity } from "../core/run-identity.ts";

export interface ToolContext {
  run: RunIdentity;
  callId: string;
  /** Aborted on timeout or when the turn is cancelled; long tools should honour it. */
  signal: AbortSignal;
  logger: Logger;
}

/** What the run has had in its context when a call is decided: what an approval rule may weigh. */
export interface CallContext {
  /**
   * The model has seen untrusted content in this run before it made the call: a tool result, another
   * person's message, text fenced as untrusted (quoted thread messages, the viewed channel), a
   * summary of earlier history, or a task handed down by another model (`delegate`).
   */
  untrustedSeen: boolean;
}

/**
 * `never` | `always` | a function of the validated args, who runs it and what the run has seen: true
 * (or a sentence saying why, kept with the approval) when the call needs one. Policy applies it; a
 * tool never asks itself.
 */
export type ApprovalRule<A> = "never" | "always" | ApprovalFn<A>;
// Method syntax keeps the parameter bivariant, so a Tool<specific schema> is still a Tool.
type ApprovalFn<A> = {
  rule(args: A, run: RunIdentity, context: CallContext): boolean | string | Promise<boolean | string>;
}["rule"];

export interface ToolOptions<S extends z.ZodObject> {
  name: string;
  description: string;
  input: S;
  /** The lowest permission level that may call it. Default `user`. */
  level?: PermissionLevel;
  approval?: ApprovalRule<z.output<S>>;
  approvers?: ApproversRule;
  /** Shows a confirm dialog on the Approve button. */
  dangerous?: boolean;
  timeoutMs?: number;
  /** Retries after a failure or timeout; only honoured when `idempotent` is true. */
  retries?: number;
  idempotent?: boolean;
  /** At most this many executions of this tool at once (per process). */
  concurrency?: number;
  /** Results longer than this are capped (head and tail kept); the full text stays fetchable. */
  maxResultChars?: number;
  /** Example inputs, appended to the description the model sees. */
  examples?: Array<z.input<S>>;
  /**
   * Turns names in the validated args into Slack ids (`#general` → `C…`, `Li Ming` → `U…`) before
   * policy sees the call, so policy, the approval and the audit log all see the resolved ids. Throws a
   * `HermesError` a person can read when a name is unknown or ambiguous; the call then fails unrun.
   */
  resolveArgs?(args: z.output<S>, run: RunIdentity, signal: AbortSignal): Promise<z.output<S>>;
  execute(args: z.output<S>, ctx: ToolContext): unknown;
}

export type Tool<S extends z.ZodObject = z.ZodObject> = Required<
  Omit<ToolOptions<S>, "examples" | "resolveArgs">
> & {
  examples: Array<z.input<S>>;
  resolveArgs?: ToolOptions<S>["resolveArgs"];
};

export const TOOL_DEFAULTS = {
  level: "user",
  approval: "never",
  approvers: "requester_or_admin",
  dangerous: false,
  timeoutMs: 15_000,
  retries: 0,
  idempotent: false,
  concurrency: 4,
  maxResultChars: 4000,
} as const;

const NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** A tool is one function with a zod schema; validation, limits, policy and audit are the runtime's job. */
export function defineTool<S extends z.ZodObject>(options: ToolOptions<S>): Tool<S> {
  if (!NAME.test(options.name)) {
    throw new Error(
      `Tool name "${options.name}" must be snake_case: lowercase letters, digits and _, at most 64.`,
    );
  }
  return { ...TOOL_DEFAULTS, examples: [], ...options } as Tool<S>;
}
