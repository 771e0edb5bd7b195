import { randomUUID } from "node:crypto";
import type { ChatMessage, ToolCall, ToolMessage, Usage } from "./messages.ts";
import { addUsage } from "./messages.ts";
import type { CallOutcome } from "./run-calls.ts";
import { type Decision, type PendingCall, type RunSnapshot, SNAPSHOT_VERSION } from "./run-snapshot.ts";
import type { RunWrites } from "./run-writes.ts";
import {
  DEFAULT_LIMITS,
  type RuntimeDeps,
  type State,
  type TurnResult,
  type TurnStatus,
} from "./runtime-types.ts";
import { sanitizeHistory } from "./sanitize-history.ts";
import { EXPIRED_RESULT, REJECTED_RESULT, type StopReason, stopMessage } from "./stop-messages.ts";
import type { Tracer } from "./trace.ts";

export function turnSignal(deps: RuntimeDeps): { signal: AbortSignal; dispose: () => void } {
  const ms = deps.limits?.turnTimeoutMs ?? DEFAULT_LIMITS.turnTimeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("turn_timeout")), ms);
  const signal = deps.signal ? AbortSignal.any([controller.signal, deps.signal]) : controller.signal;
  return { signal, dispose: () => clearTimeout(timer) };
}

export function countModelCall(state: State, usage: Usage) {
  state.modelCalls++;
  state.usage = addUsage(state.usage, {
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    totalTokens: usage.totalTokens,
    requests: 1,
  });
}

/** Tool results go right after their call message, in call order (pending ones get none yet). */
export function insertResults(messages: ChatMessage[], outcomes: CallOutcome[]) {
  const results = outcomes.flatMap((o) => (o.kind === "result" ? [o.message] : []));
  if (results.length === 0) return;
  let at = messages.length;
  while (at > 0 && messages[at - 1]!.role === "tool") at--;
  // The usual step: one result, right after its call message.
  if (results.length === 1 && at === messages.length) {
    messages.push(results[0]!);
    return;
  }
  const existing = messages.slice(at) as ToolMessage[];
  const callMsg = messages[at - 1];
  const order = callMsg?.role === "assistant" ? (callMsg.toolCalls ?? []).map((c) => c.id) : [];
  const all = [...existing, ...results].sort(
    (a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId),
  );
  messages.splice(at, existing.length, ...all);
}

export function countFailures(
  state: State,
  outcomes: CallOutcome[],
  deps: RuntimeDeps,
): { reason: StopReason; message: string } | undefined {
  const max = deps.limits?.maxConsecutiveFailures ?? DEFAULT_LIMITS.maxConsecutiveFailures;
  let stop: { reason: StopReason; message: string } | undefined;
  for (const o of outcomes) {
    if (o.kind !== "result") continue;
    const name = o.call.name;
    state.failures[name] = o.failed ? (state.failures[name] ?? 0) + 1 : 0;
    if (o.failed && state.failures[name]! >= max && !stop) {
      stop = {
        reason: "repeated_failure",
        message: stopMessage("repeated_failure", {
          tool: name,
          failures: state.failures[name],
          lastError: o.error,
        }),
      };
    }
  }
  return stop;
}

export function decidedResult(p: PendingCall, d: Decision): CallOutcome {
  const call = { id: p.callId, name: p.tool, arguments: JSON.stringify(p.args) };
  const content = d.status === "expired" ? EXPIRED_RESULT : REJECTED_RESULT(d.by);
  return {
    kind: "result",
    call,
    message: { role: "tool", toolCallId: p.callId, name: p.tool, content },
    failed: false,
  };
}

export function snapshotOf(state: State, pending: PendingCall[]): RunSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    run: state.run,
    // Copies of what the loop changes in place (usage is replaced, never changed): a checkpoint written
    // behind the run (`run-writes.ts`) is this moment's state, not a later one.
    messages: [...state.messages],
    pending,
    step: state.step,
    usage: state.usage,
    modelCalls: state.modelCalls,
    failures: { ...state.failures },
    truncations: state.truncations,
    ...(state.fallback ? { fallback: state.fallback } : {}),
  };
}

/** The state a snapshot holds, as the loop runs on it (copies: the snapshot itself is not changed). */
export function stateOf(snapshot: RunSnapshot): State {
  return {
    run: snapshot.run,
    messages: [...snapshot.messages],
    step: snapshot.step,
    usage: snapshot.usage,
    modelCalls: snapshot.modelCalls,
    failures: { ...snapshot.failures },
    truncations: snapshot.truncations,
    ...(snapshot.fallback ? { fallback: snapshot.fallback } : {}),
  };
}

/**
 * Calls of the last assistant message that have no result yet: in a checkpoint, the calls a dead
 * worker was handling (or, in a paused snapshot, the ones waiting for a human).
 */
export function openCalls(messages: ChatMessage[]): ToolCall[] {
  let at = messages.length;
  while (at > 0 && messages[at - 1]!.role === "tool") at--;
  const callMsg = messages[at - 1];
  if (callMsg?.role !== "assistant" || !callMsg.toolCalls?.length) return [];
  const answered = new Set(messages.slice(at).map((m) => (m as ToolMessage).toolCallId));
  return callMsg.toolCalls.filter((c) => !answered.has(c.id));
}

export function paused(state: State, pending: PendingCall[], tracer: Tracer): TurnResult {
  tracer.emit("run.end", { status: "paused", pending: pending.map((p) => p.tool) });
  return { ...result(state, "paused", ""), snapshot: snapshotOf(state, pending) };
}

/** The calls of a step that wait for a person's decision. */
export function pendingOf(outcomes: CallOutcome[]): PendingCall[] {
  return outcomes.flatMap((o) => (o.kind === "pending" ? [o.pending] : []));
}

/**
 * After a step's calls have their results: count failures, pause for the calls that wait for a
 * person, stop when a tool failed too often in a row; otherwise checkpoint the run and return
 * undefined, and the model is asked again.
 */
export function settleStep({
  state,
  outcomes,
  pending,
  tracer,
  deps,
  writes,
}: {
  state: State;
  outcomes: CallOutcome[];
  pending: PendingCall[];
  tracer: Tracer;
  deps: RuntimeDeps;
  writes: RunWrites;
}): TurnResult | undefined {
  const stop = countFailures(state, outcomes, deps);
  if (pending.length > 0) return paused(state, pending, tracer);
  if (stop)
    return finish({ state, tracer, status: "stopped", answer: stop.message, stopReason: stop.reason });
  // The next step's model call need not wait for it (`run-writes.ts`); the run's end does.
  writes.checkpointBehind(snapshotOf(state, []));
  return undefined;
}

/** Ends a run: a run that did not complete gets its closing sentence as the last (sanitized) message. */
export function finish({
  state,
  tracer,
  status,
  answer,
  stopReason,
}: {
  state: State;
  tracer: Tracer;
  status: TurnStatus;
  answer: string;
  stopReason?: StopReason | undefined;
}): TurnResult {
  if (status !== "completed")
    state.messages = [...sanitizeHistory(state.messages), { role: "assistant", content: answer }];
  tracer.emit("run.end", {
    status,
    stopReason,
    steps: state.step,
    modelCalls: state.modelCalls,
    usage: state.usage,
    ...(state.fallback ? { fallback: state.fallback } : {}),
  });
  return { ...result(state, status, answer), ...(stopReason ? { stopReason } : {}) };
}

export function result(state: State, status: TurnStatus, answer: string): TurnResult {
  return {
    status,
    runId: state.run.runId,
    answer,
    messages: state.messages,
    usage: state.usage,
    steps: state.step,
    modelCalls: state.modelCalls,
    ...(state.fallback ? { fallback: state.fallback } : {}),
  };
}

/**
 * Call ids are unique within a response already; some servers reuse them across steps (`call_0`
 * every time). Within a run they must be unique too: results pair with calls by id, and a run
 * continued after a crash finds each call's audit rows by run and call id.
 */
export function uniqueInRun(calls: ToolCall[], messages: ChatMessage[], tracer: Tracer): ToolCall[] {
  const used = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const c of m.toolCalls ?? []) used.add(c.id);
  if (!calls.some((c) => used.has(c.id))) return calls;
  return calls.map((c) => {
    if (!used.has(c.id)) return c;
    const id = `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    tracer.emit("tool.repair", { tool: c.name, callId: id, repairs: [`call id ${c.id} reused in this run`] });
    return { ...c, id };
  });
}
