import { randomUUID } from "node:crypto";
import type { RunIdentity } from "../../core/run-identity.ts";
import { DEFAULT_SYSTEM_PROMPT } from "../context/system-prompt.ts";
import { type CallOutcome, decidedResult, executeApproved } from "./call-tools.ts";
import { createRunWrites, drainedAfter, type RunWrites } from "./checkpoint-writes.ts";
import { DEFAULT_LIMITS, type DurableDeps, type TurnInput, type TurnResult } from "./runtime-types.ts";
import type { Decision, PendingCall, RunSnapshot } from "./snapshot.ts";
import { parseRunSnapshot } from "./snapshot-schema.ts";
import { RunState } from "./state.ts";
import { callEnv, type StepContext, settleCalls, takeStep } from "./step.ts";
import { firstStop, type LastStep, STOP_RULES } from "./stop-rules.ts";
import { createTracer, type Tracer } from "./trace.ts";
import { turnSignal } from "./turn-signal.ts";

export type {
  DurableDeps,
  Limits,
  RuntimeDeps,
  TurnInput,
  TurnResult,
  TurnStatus,
} from "./runtime-types.ts";
export { DEFAULT_LIMITS } from "./runtime-types.ts";

/** Runs one user turn: model → tool calls → policy → execute → … until an answer, a pause or a limit. */
export async function runTurn(input: TurnInput, deps: DurableDeps): Promise<TurnResult> {
  const run: RunIdentity = { ...input.run, runId: input.run.runId ?? randomUUID() };
  const state = RunState.start(run, input.history, input.userMessage, input.userImages);
  const tracer = createTracer({
    logger: deps.logger,
    runId: run.runId,
    sessionKey: run.sessionKey,
    onEvent: deps.onTraceEvent,
  });
  tracer.emit("run.start", { userId: run.userId, historyMessages: input.history.length });
  // The run's first checkpoint lands while the first model call is made (nothing has run yet).
  const writes = createRunWrites(deps.checkpoint);
  writes.checkpointBehind(state.snapshot([]));
  return drainedAfter(writes, () => loop(state, deps, tracer, writes));
}

/**
 * A stored run's state and a tracer that goes on at its step (a resume, or a continuation after a
 * crash). The snapshot is checked first: one of another version, or malformed, is refused.
 */
export function reopenRun(snapshot: RunSnapshot, deps: DurableDeps): { state: RunState; tracer: Tracer } {
  const state = RunState.fromSnapshot(parseRunSnapshot(snapshot));
  const tracer = createTracer({
    logger: deps.logger,
    runId: state.run.runId,
    sessionKey: state.run.sessionKey,
    onEvent: deps.onTraceEvent,
  });
  tracer.step = state.step;
  return { state, tracer };
}

/**
 * Continues a paused run with the humans' decisions. The model is not asked again for the paused
 * step, and nothing that already ran runs again. Calls without a decision stay pending.
 */
export async function resumeRun(
  snapshot: RunSnapshot,
  decisions: Record<string, Decision>,
  deps: DurableDeps,
): Promise<TurnResult> {
  const { state, tracer } = reopenRun(snapshot, deps);
  tracer.emit("run.resume", {
    decisions: Object.fromEntries(Object.entries(decisions).map(([k, d]) => [k, d.status])),
  });
  const { signal, dispose } = turnSignal(deps);
  const writes = createRunWrites(deps.checkpoint);
  try {
    return await drainedAfter(writes, async () => {
      const env = callEnv(state, deps, tracer, signal, writes);
      const still: PendingCall[] = [];
      const done: Array<Promise<CallOutcome>> = [];
      for (const p of snapshot.pending) {
        const d = decisions[p.callId];
        if (!d) still.push(p);
        else if (d.status === "approved") done.push(executeApproved(p, d.argsSha256, env));
        else done.push(Promise.resolve(decidedResult(p, d)));
      }
      const outcomes = await Promise.all(done);
      state.insertResults(outcomes);
      const settled = settleCalls({ state, tracer, deps, writes }, outcomes, still);
      if (settled.kind === "end") return settled.result;
      return await loop(state, deps, tracer, writes, signal, settled);
    });
  } finally {
    dispose();
  }
}

/**
 * The run's steps from `state` on, after a step that ended as `last` (the stop rules see it first).
 * Without `outer`, the turn's own signal (its wall-clock budget) is made here.
 */
export async function loop(
  state: RunState,
  deps: DurableDeps,
  tracer: Tracer,
  writes: RunWrites,
  outer?: AbortSignal,
  last: LastStep = { kind: "next" },
): Promise<TurnResult> {
  try {
    return await steps(state, deps, tracer, writes, outer, last);
  } finally {
    // A run returns once what its calls used is counted (settles ran beside the steps).
    await deps.settled?.();
  }
}

async function steps(
  state: RunState,
  deps: DurableDeps,
  tracer: Tracer,
  writes: RunWrites,
  outer: AbortSignal | undefined,
  first: LastStep,
): Promise<TurnResult> {
  const own = outer ? { signal: outer, dispose: () => undefined } : turnSignal(deps);
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const ctx: StepContext = {
    state,
    deps,
    tracer,
    writes,
    signal: own.signal,
    limits,
    specs: deps.registry.specs(deps.toolNames),
    env: callEnv(state, deps, tracer, own.signal, writes),
    systemPrompt: deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT,
    hints: { truncated: false, unreadable: undefined },
  };
  try {
    let last = first;
    for (;;) {
      const view = { step: state.step, limits, maxOutputTokens: deps.model.maxOutputTokens, last };
      const stop = firstStop(STOP_RULES, view);
      if (stop)
        return state.finish({ tracer, status: stop.status, answer: stop.answer, stopReason: stop.reason });
      const end = await takeStep(ctx);
      if (end.kind === "end") return end.result;
      last = end;
    }
  } finally {
    own.dispose();
  }
}
