import { setImmediate as yieldToLoop } from "node:timers/promises";
import { argsSha256 } from "../../core/args-hash.ts";
import { errorMessage } from "../../core/errors.ts";
import { argumentPreview } from "../../core/json-limits.ts";
import type { LenientParse } from "../../core/lenient-json.ts";
import type { Logger } from "../../core/logger.ts";
import type { RunIdentity } from "../../core/run-identity.ts";
import type { Tool } from "../../tools/define-tool.ts";
import type { ToolRegistry } from "../../tools/registry.ts";
import type { ToolCall, ToolMessage } from "../context/messages.ts";
import type { RunWrites } from "./checkpoint-writes.ts";
import type { PolicyHook, ToolEvent, ToolEventSink } from "./policy-hook.ts";
import { resolveCallArgs } from "./resolve-call-args.ts";
import type { Decision, PendingCall } from "./snapshot.ts";
import {
  ARGS_CHANGED_RESULT,
  AUDIT_UNAVAILABLE_RESULT,
  DENIED_RESULT,
  EXPIRED_RESULT,
  REJECTED_RESULT,
  TOOL_CHANGED_RESULT,
  UNRESOLVED_RESULT,
} from "./stop-messages.ts";
import type { Tracer } from "./trace.ts";

export type CallOutcome =
  | { kind: "result"; call: ToolCall; message: ToolMessage; failed: boolean; error?: string }
  | { kind: "pending"; call: ToolCall; pending: PendingCall };

export interface CallEnv {
  registry: ToolRegistry;
  allowed: ReadonlySet<string>;
  policy?: PolicyHook;
  onToolEvent?: ToolEventSink;
  run: RunIdentity;
  tracer: Tracer;
  signal: AbortSignal;
  /**
   * Where an executed call's outcome record goes without being awaited: it lands before the step's
   * next checkpoint and before the run returns. Absent: the outcome is awaited like every record.
   */
  writes?: RunWrites;
  /**
   * The step's write-ahead checkpoint while it lands: a call runs only once it has (so no call runs
   * unless a checkpoint knows about it), while the calls' `tool.requested` rows and policy go on
   * beside it. Absent: nothing to wait for (a resumed run's approved calls).
   */
  checkpointed?: Promise<void>;
  /**
   * Whether the model has seen untrusted content in this run so far (read when a call is decided, so
   * it reflects what the model had when it wrote the call). Absent: counted as seen.
   */
  untrustedSeen?: () => boolean;
}

/** The calls of a step that wait for a person's decision. */
export function pendingOf(outcomes: CallOutcome[]): PendingCall[] {
  return outcomes.flatMap((o) => (o.kind === "pending" ? [o.pending] : []));
}

/** The outcome of a pending call a person rejected, or whose approval expired: not run, and the model told why. */
export function decidedResult(p: PendingCall, d: Decision): CallOutcome {
  const call = { id: p.callId, name: p.tool, arguments: JSON.stringify(p.args) };
  const content = d.status === "expired" ? EXPIRED_RESULT : REJECTED_RESULT(d.by);
  return { kind: "result", call, message: toolMessage(call, content), failed: false };
}

const toolMessage = (call: ToolCall, content: string, resultRef?: string): ToolMessage => ({
  role: "tool",
  toolCallId: call.id,
  name: call.name,
  content,
  ...(resultRef ? { resultRef } : {}),
});

/**
 * Handles the calls of one assistant message: validate each, ask policy, execute the allowed ones
 * concurrently, and leave the ones needing approval pending. Every call gets exactly one outcome, in
 * call order. Returns the calls to keep in history: resolved names and repaired JSON arguments, so
 * servers accept them later and the model sees the names it should use.
 */
export async function runCalls(
  calls: ToolCall[],
  env: CallEnv,
): Promise<{ outcomes: CallOutcome[]; sent: ToolCall[] }> {
  const { tracer } = env;
  const sent: ToolCall[] = [];
  const decided: Array<Promise<CallOutcome>> = [];

  let parsedChars = 0;
  for (const written of calls) {
    // Parsing and repairing is synchronous: between calls whose texts add up to a lot, other
    // requests get their turn (a step of 40 calls with hostile arguments would hold the loop).
    if (parsedChars >= YIELD_EVERY_CHARS) {
      parsedChars = 0;
      await yieldToLoop();
    }
    parsedChars += written.arguments.length;
    const prepared = env.registry.prepare(written, env.allowed);
    // The call as the registry resolved it: a normalized name (`functions.x` → `x`) from here on.
    const call = prepared.call;
    if (prepared.repairs.length) {
      tracer.emit("tool.repair", {
        tool: call.name,
        callId: call.id,
        repairs: prepared.repairs,
        ...(call.name !== written.name ? { writtenName: written.name } : {}),
      });
    }
    if (!prepared.ok) {
      const parsed = prepared.parsed;
      sent.push({
        id: call.id,
        name: call.name,
        arguments: parsed && argsObject(parsed) ? JSON.stringify(parsed.value) : "{}",
      });
      if (prepared.kind === "not_permitted") {
        decided.push(notPermitted(call, prepared.tool, prepared.parsed, env));
        continue;
      }
      tracer.emit(prepared.kind === "unknown_tool" ? "tool.unknown" : "tool.validation_error", {
        tool: call.name,
        callId: call.id,
        error: prepared.error,
      });
      decided.push(invalidOutcome({ call, error: prepared.error, kind: prepared.kind, env, parsed }));
      continue;
    }
    const { tool, args, notes } = prepared;
    sent.push({ id: call.id, name: call.name, arguments: JSON.stringify(args) });
    if (notes.coerced.length)
      tracer.emit("tool.coerced", { tool: tool.name, callId: call.id, coerced: notes.coerced });
    if (notes.dropped.length || notes.nulls.length) {
      tracer.emit("tool.dropped_keys", {
        tool: tool.name,
        callId: call.id,
        dropped: notes.dropped,
        nulls: notes.nulls,
      });
    }
    decided.push(decide(call, tool, args, env));
  }
  return { outcomes: await Promise.all(decided), sent };
}

/** Argument text parsed between two yields to the event loop. */
const YIELD_EVERY_CHARS = 32 * 1024;

/** The parsed arguments when they are one plain object (what a tool takes and history keeps). */
function argsObject(
  parsed: LenientParse,
): parsed is { ok: true; value: Record<string, unknown>; repaired: string[] } {
  return (
    parsed.ok && parsed.value !== null && typeof parsed.value === "object" && !Array.isArray(parsed.value)
  );
}

/**
 * The audit fields of a call that will not run: its arguments as parsed, or a capped preview of the
 * raw text when they did not parse (or parsed to a string).
 */
function unrunCall(call: ToolCall, tool: string, parsed: LenientParse | undefined, env: CallEnv) {
  const args = !parsed?.ok
    ? call.oversize !== undefined
      ? call.arguments // already the preview of an oversize text
      : argumentPreview(call.arguments)
    : typeof parsed.value === "string"
      ? argumentPreview(parsed.value)
      : parsed.value;
  return { run: env.run, callId: call.id, tool, args, argsSha256: argsSha256(tool, args) };
}

async function invalidOutcome({
  call,
  error,
  kind,
  env,
  parsed,
}: {
  call: ToolCall;
  error: string;
  kind: "unknown_tool" | "invalid_args";
  env: CallEnv;
  parsed: LenientParse | undefined;
}): Promise<CallOutcome> {
  if (kind === "invalid_args") {
    // A known tool asked for with bad arguments is still a request: the audit log sees it fail.
    const base = unrunCall(call, call.name, parsed, env);
    await report(env, { ...base, action: "tool.requested" });
    await report(env, { ...base, action: "tool.failed", error: "invalid arguments" });
  }
  return { kind: "result", call, message: toolMessage(call, error), failed: true, error };
}

/**
 * A call to a registered tool the requester may not use (a guess, or a name an injection planted):
 * audited as requested + denied with the policy's reason, and the model is told it is not permitted,
 * not that the tool does not exist. Its arguments are never validated or executed.
 */
async function notPermitted(
  call: ToolCall,
  tool: Tool,
  parsed: LenientParse,
  env: CallEnv,
): Promise<CallOutcome> {
  const base = unrunCall(call, tool.name, parsed, env);
  const reason = await denyReason(tool, argsObject(parsed) ? parsed.value : {}, call, env);
  env.tracer.emit("tool.policy", { tool: tool.name, callId: call.id, decision: "deny", reason });
  const recorded =
    (await report(env, { ...base, action: "tool.requested" })) &&
    (await report(env, { ...base, action: "tool.denied", reason }));
  const content = recorded ? DENIED_RESULT(reason) : AUDIT_UNAVAILABLE_RESULT;
  return { kind: "result", call, message: toolMessage(call, content), failed: false };
}

/** The policy's own words for a tool outside the requester's set; the set is authoritative either way. */
async function denyReason(
  tool: Tool,
  args: Record<string, unknown>,
  call: ToolCall,
  env: CallEnv,
): Promise<string> {
  const fallback = `${tool.name} is not available to this user`;
  if (!env.policy) return fallback;
  try {
    const decision = await env.policy({ tool, args, call, run: env.run });
    return decision.action === "deny" ? decision.reason : fallback;
  } catch {
    return fallback;
  }
}

async function decide(
  call: ToolCall,
  tool: Tool,
  written: Record<string, unknown>,
  env: CallEnv,
): Promise<CallOutcome> {
  const resolved = await resolveCallArgs(tool, written, env.run, { signal: env.signal });
  if (!resolved.ok) return unresolved(call, tool, written, resolved.error, env);
  const args = resolved.args;
  const hash = argsSha256(tool.name, args);
  const base = { run: env.run, callId: call.id, tool: tool.name, args, argsSha256: hash };
  if (!(await report(env, { ...base, action: "tool.requested" }))) {
    return {
      kind: "result",
      call,
      message: toolMessage(call, AUDIT_UNAVAILABLE_RESULT),
      failed: true,
      error: "audit unavailable",
    };
  }
  const untrustedSeen = env.untrustedSeen?.() ?? true;
  const decision = env.policy
    ? await env.policy({ tool, args, call, run: env.run, untrustedSeen })
    : { action: "allow" as const };
  env.tracer.emit("tool.policy", {
    tool: tool.name,
    callId: call.id,
    decision: decision.action,
    reason: "reason" in decision ? decision.reason : undefined,
    untrustedSeen,
  });
  if (decision.action === "deny") {
    await report(env, { ...base, action: "tool.denied", reason: decision.reason });
    return {
      kind: "result",
      call,
      message: toolMessage(call, DENIED_RESULT(decision.reason)),
      failed: false,
    };
  }
  if (decision.action === "needs_approval") {
    return {
      kind: "pending",
      call,
      pending: {
        callId: call.id,
        tool: tool.name,
        args,
        argsSha256: hash,
        reason: decision.reason,
        definition: env.registry.definitionOf(tool.name),
      },
    };
  }
  return execute({ call, tool, args, env, hash });
}

/** A name in the arguments that is unknown or ambiguous: audited as a failed request, never run. */
async function unresolved(
  call: ToolCall,
  tool: Tool,
  args: Record<string, unknown>,
  error: string,
  env: CallEnv,
): Promise<CallOutcome> {
  env.tracer.emit("tool.validation_error", { tool: tool.name, callId: call.id, error });
  const base = {
    run: env.run,
    callId: call.id,
    tool: tool.name,
    args,
    argsSha256: argsSha256(tool.name, args),
  };
  await report(env, { ...base, action: "tool.requested" });
  await report(env, { ...base, action: "tool.failed", error });
  return { kind: "result", call, message: toolMessage(call, UNRESOLVED_RESULT(error)), failed: true, error };
}

/** Runs an allowed (or approved) call and reports its outcome. */
export async function execute({
  call,
  tool,
  args,
  env,
  hash,
}: {
  call: ToolCall;
  tool: Tool;
  args: Record<string, unknown>;
  env: CallEnv;
  /** The call's canonical arguments hash (what an approval was bound to). */
  hash: string;
}): Promise<CallOutcome> {
  if (env.checkpointed) await env.checkpointed;
  env.tracer.emit("tool.start", { tool: tool.name, callId: call.id });
  let logger: Logger | undefined;
  const result = await env.registry.execute(tool, args, {
    run: env.run,
    callId: call.id,
    signal: env.signal,
    // Made on first use: most tools never log.
    get logger() {
      logger ??= env.tracer.logger.child({ tool: tool.name, step: env.tracer.step });
      return logger;
    },
  });
  env.tracer.emit("tool.end", {
    tool: tool.name,
    callId: call.id,
    ok: result.ok,
    durationMs: result.durationMs,
    attempts: result.attempts,
    chars: result.fullLength,
    capped: result.resultRef !== undefined,
    error: result.error,
    // The result goes back to the model as data: the trace names where that untrusted text came from.
    source: `tool:${tool.name}`,
    untrusted: true,
  });
  const recorded = report(env, {
    run: env.run,
    callId: call.id,
    tool: tool.name,
    args,
    argsSha256: hash,
    action: result.ok ? "tool.executed" : "tool.failed",
    durationMs: result.durationMs,
    error: result.error,
    resultSummary: result.ok ? result.content : undefined, // the sink redacts, then caps
  });
  // The call has run: its outcome is recorded whatever comes next, and the step goes on meanwhile
  // (the checkpoint that holds this result is written only once the record has landed).
  if (env.writes) env.writes.recordBehind(recorded);
  else await recorded;
  return {
    kind: "result",
    call,
    message: toolMessage(call, result.content, result.resultRef),
    failed: !result.ok,
    error: result.error,
  };
}

/** Re-checks and runs a call a human approved; the hash must still match what was approved. */
export async function executeApproved(
  pending: PendingCall,
  approvedHash: string | undefined,
  env: CallEnv,
): Promise<CallOutcome> {
  const call: ToolCall = { id: pending.callId, name: pending.tool, arguments: JSON.stringify(pending.args) };
  const tool = env.registry.get(pending.tool);
  const hash = argsSha256(pending.tool, pending.args);
  const refuse = async (traced: string, audited: string, result: string): Promise<CallOutcome> => {
    env.tracer.emit("tool.policy", {
      tool: pending.tool,
      callId: pending.callId,
      decision: "deny",
      reason: traced,
    });
    await report(env, {
      run: env.run,
      callId: call.id,
      tool: pending.tool,
      args: pending.args,
      argsSha256: hash,
      action: "tool.denied",
      reason: audited,
    });
    return { kind: "result", call, message: toolMessage(call, result), failed: false };
  };
  if (
    tool !== undefined &&
    pending.definition !== undefined &&
    env.registry.definitionOf(tool.name) !== pending.definition
  )
    return refuse("tool changed", "the tool's definition changed since approval", TOOL_CHANGED_RESULT);
  if (!tool || hash !== pending.argsSha256 || (approvedHash !== undefined && approvedHash !== hash))
    return refuse("arguments changed", "arguments changed since approval", ARGS_CHANGED_RESULT);
  const decision = env.policy
    ? await env.policy({ tool, args: pending.args, call, run: env.run, approved: true })
    : { action: "allow" as const };
  env.tracer.emit("tool.policy", {
    tool: tool.name,
    callId: call.id,
    decision: decision.action,
    approved: true,
  });
  if (decision.action === "deny") {
    await report(env, {
      run: env.run,
      callId: call.id,
      tool: tool.name,
      args: pending.args,
      argsSha256: hash,
      action: "tool.denied",
      reason: decision.reason,
    });
    return {
      kind: "result",
      call,
      message: toolMessage(call, DENIED_RESULT(decision.reason)),
      failed: false,
    };
  }
  return execute({ call, tool, args: pending.args, env, hash });
}

/** Sends a lifecycle event; false when it could not be recorded (the caller fails closed). */
async function report(env: CallEnv, event: ToolEvent): Promise<boolean> {
  if (!env.onToolEvent) return true;
  try {
    await env.onToolEvent(event);
    return true;
  } catch (err) {
    env.tracer.logger.error(
      { tool: event.tool, action: event.action, err: errorMessage(err) },
      "tool event not recorded",
    );
    return false;
  }
}
