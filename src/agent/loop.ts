import { randomUUID } from "node:crypto";
import { errorMessage } from "../errors.ts";
import type { RunIdentity } from "../tools/define-tool.ts";
import { BudgetExceededError, BudgetUnavailableError } from "./budget-guard.ts";
import type { ModelResponse } from "./chat-model.ts";
import { fitToBudget } from "./context-budget.ts";
import { type ChatMessage, emptyUsage } from "./messages.ts";
import { quoteOtherAuthors } from "./quote-other-authors.ts";
import { type CallEnv, type CallOutcome, executeApproved, runCalls } from "./run-calls.ts";
import {
  assertSnapshotVersion,
  type Checkpoint,
  type Decision,
  type PendingCall,
  type RunSnapshot,
} from "./run-snapshot.ts";
import {
  countModelCall,
  decidedResult,
  finish,
  insertResults,
  pendingOf,
  settleStep,
  snapshotOf,
  stateOf,
  turnSignal,
  uniqueInRun,
} from "./run-state.ts";
import { createRunWrites, drainedAfter, type RunWrites } from "./run-writes.ts";
import {
  DEFAULT_LIMITS,
  type Limits,
  type RuntimeDeps,
  type State,
  type TurnInput,
  type TurnResult,
} from "./runtime-types.ts";
import { sanitizeHistory } from "./sanitize-history.ts";
import { stopMessage } from "./stop-messages.ts";
import { summarizeWithModel } from "./summarize.ts";
import { DEFAULT_SYSTEM_PROMPT } from "./system-prompt.ts";
import { specsTokens, specsTokensUpperBound, textTokens, textTokensUpperBound } from "./token-count.ts";
import { createTracer, type Tracer } from "./trace.ts";
import { hasSeenUntrusted } from "./untrusted-seen.ts";

export type { Limits, RuntimeDeps, TurnInput, TurnResult, TurnStatus } from "./runtime-types.ts";
export { DEFAULT_LIMITS } from "./runtime-types.ts";

/** The runtime's dependencies plus, for a durable run, where its checkpoints go. */
export type DurableDeps = RuntimeDeps & { checkpoint?: Checkpoint };

/** Runs one user turn: model → tool calls → policy → execute → … until an answer, a pause or a limit. */
export async function runTurn(input: TurnInput, deps: DurableDeps): Promise<TurnResult> {
  const run: RunIdentity = { ...input.run, runId: input.run.runId ?? randomUUID() };
  const state: State = {
    run,
    messages: [...input.history, { role: "user", content: input.userMessage, author: run.userId }],
    step: 0,
    usage: emptyUsage(),
    modelCalls: 0,
    failures: {},
    truncations: 0,
  };
  const tracer = createTracer({
    logger: deps.logger,
    runId: run.runId,
    sessionKey: run.sessionKey,
    onEvent: deps.onTraceEvent,
  });
  tracer.emit("run.start", { userId: run.userId, historyMessages: input.history.length });
  // The run's first checkpoint lands while the first model call is made (nothing has run yet).
  const writes = createRunWrites(deps.checkpoint);
  writes.checkpointBehind(snapshotOf(state, []));
  return drainedAfter(writes, () => loop(state, deps, tracer, writes));
}

/** A stored run's state and a tracer that goes on at its step (a resume, or a continuation after a crash). */
export function reopenRun(snapshot: RunSnapshot, deps: DurableDeps): { state: State; tracer: Tracer } {
  assertSnapshotVersion(snapshot);
  const state = stateOf(snapshot);
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
      insertResults(state.messages, outcomes);
      const settled = settleStep({ state, outcomes, pending: still, tracer, deps, writes });
      return settled ?? (await loop(state, deps, tracer, writes, signal));
    });
  } finally {
    dispose();
  }
}

export async function loop(
  state: State,
  deps: DurableDeps,
  tracer: Tracer,
  writes: RunWrites,
  outer?: AbortSignal,
): Promise<TurnResult> {
  try {
    return await steps(state, deps, tracer, writes, outer);
  } finally {
    // A run returns once what its calls used is counted (settles ran beside the steps).
    await deps.settled?.();
  }
}

async function steps(
  state: State,
  deps: DurableDeps,
  tracer: Tracer,
  writes: RunWrites,
  outer?: AbortSignal,
): Promise<TurnResult> {
  const limits = { ...DEFAULT_LIMITS, ...deps.limits };
  const own = outer ? undefined : turnSignal(deps);
  const signal = outer ?? own!.signal;
  const specs = deps.registry.specs(deps.toolNames);
  const env = callEnv(state, deps, tracer, signal, writes);
  const systemPrompt = deps.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
  const model = () => (state.fallback && deps.fallbackModel ? deps.fallbackModel : deps.model);
  let retryHint = false;
  let unreadableHint: string | undefined;
  let summaryRefused: BudgetExceededError | BudgetUnavailableError | undefined;
  try {
    for (;;) {
      if (state.step >= limits.maxSteps) {
        return finish({
          state,
          tracer,
          status: "stopped",
          answer: stopMessage("max_steps", { steps: limits.maxSteps }),
          stopReason: "max_steps",
        });
      }
      state.step++;
      tracer.step = state.step;

      const budget = await fitToBudget(state.messages, {
        budgetTokens: limits.contextBudgetTokens,
        fixedTokens: () => textTokens(systemPrompt) + specsTokens(specs) + model().maxOutputTokens,
        fixedTokensUpperBound:
          textTokensUpperBound(systemPrompt) + specsTokensUpperBound(specs) + model().maxOutputTokens,
        summarize: (i) =>
          summarizeWithModel(model(), i, signal, (u) => countModelCall(state, u)).catch((err: unknown) => {
            if (err instanceof BudgetExceededError || err instanceof BudgetUnavailableError)
              summaryRefused = err;
            throw err;
          }),
      });
      // No budget for the summary: the history stays as it was (nothing dropped unsummarized) and
      // the run stops as it would at the model call.
      if (summaryRefused) return stopForBudget(state, tracer, summaryRefused);
      if (budget.messages !== state.messages) {
        state.messages = budget.messages;
        tracer.emit("context.trimmed", {
          tokens: budget.tokens,
          shrunkResults: budget.shrunkResults,
          droppedUnits: budget.droppedUnits,
          summarized: budget.summarized,
          summaryError: budget.summaryError,
          overBudget: budget.overBudget,
          ...(budget.summaryError
            ? { note: "summary failed: oldest units were dropped without a summary" }
            : {}),
        });
      }
      const history = sanitizeHistory(state.messages);
      if (history.length !== state.messages.length)
        tracer.emit("history.sanitized", { before: state.messages.length, after: history.length });
      state.messages = history;
      const request: ChatMessage[] = [
        { role: "system", content: systemPrompt },
        ...quoteOtherAuthors(history, state.run.userId),
      ];
      if (retryHint) {
        request.push({
          role: "system",
          content:
            "Your previous reply was cut off at the output limit. Reply more briefly and keep tool arguments short.",
        });
      }
      if (unreadableHint) {
        request.push({
          role: "system",
          content: `Your previous reply tried to call a tool, but the call could not be read (it contained \`${unreadableHint}\`). Call the tool again through the tool-calling interface, with its arguments as one JSON object, or answer in plain text.`,
        });
      }

      const sent = {
        model: model().name,
        messages: request.length,
        tools: specs.length,
        tokens: budget.tokens,
      };
      tracer.emit("model.request", sent);
      let response: ModelResponse;
      try {
        response = await model().complete({
          messages: request,
          tools: specs,
          signal,
          onRetry: (info) => tracer.emit("model.retry", info),
          // Answer text as it is written, for a live display (none: the model is not asked to stream).
          ...(deps.onTraceEvent ? { onText: (delta: string) => tracer.emit("model.text", { delta }) } : {}),
        });
      } catch (err) {
        if (signal.aborted) return aborted(state, tracer, deps, limits);
        // Refused before the model was asked: no reply, so no call of this step runs.
        if (err instanceof BudgetExceededError || err instanceof BudgetUnavailableError)
          return stopForBudget(state, tracer, err);
        tracer.emit("model.error", { error: errorMessage(err) });
        if (
          switchToFallback({ state, deps, tracer, reason: "primary_unavailable", detail: errorMessage(err) })
        ) {
          state.step--; // the step was not done: the fallback model takes it
          continue;
        }
        return finish({
          state,
          tracer,
          status: "failed",
          answer: stopMessage("model_error", { error: errorMessage(err) }),
          stopReason: "model_error",
        });
      }
      countModelCall(state, response.usage);
      tracer.emit("model.response", {
        model: sent.model,
        // The model that answered, as the server names it (what prices and the run record go by).
        answeredBy: response.model,
        messages: sent.messages,
        tools: sent.tools,
        tokens: sent.tokens,
        finishReason: response.finishReason,
        toolCalls: response.toolCalls.map((c) => c.name),
        contentChars: response.content.length,
        usage: response.usage,
        latencyMs: response.latencyMs,
        repairs: response.repairs,
        // Whether the answer came as a stream: only then does the turn's answer stream into Slack.
        streamed: response.streamed === true,
      });
      if (response.reasoning) {
        // The reasoning goes to the trace only (the logger redacts it like every line).
        tracer.emit("model.reasoning", {
          chars: response.reasoning.length,
          text: capTraceText(response.reasoning),
        });
      }
      if (response.textFormat) {
        tracer.emit("model.format", {
          format: response.textFormat,
          from: response.textCallsFrom,
          toolCalls: response.toolCalls.map((c) => c.name),
        });
      }

      if (response.finishReason === "length") {
        state.truncations++;
        tracer.emit("model.truncated", { count: state.truncations, toolCalls: response.toolCalls.length });
        if (state.truncations >= limits.maxTruncations) {
          return finish({
            state,
            tracer,
            status: "stopped",
            answer: stopMessage("truncated", { maxTokens: deps.model.maxOutputTokens }),
            stopReason: "truncated",
          });
        }
        retryHint = true; // truncated output is never executed nor kept: ask again
        continue;
      }
      state.truncations = 0;
      retryHint = false;
      unreadableHint = undefined;

      if (response.toolCalls.length === 0 && response.unrecovered) {
        // The model tried to call a tool and no format reads it: never shown as an answer.
        state.unreadable = (state.unreadable ?? 0) + 1;
        tracer.emit("model.unrecovered", { marker: response.unrecovered, count: state.unreadable });
        if (state.unreadable < limits.maxUnreadable) {
          unreadableHint = response.unrecovered;
          continue;
        }
        if (
          switchToFallback({ state, deps, tracer, reason: "unreadable_output", detail: response.unrecovered })
        ) {
          state.unreadable = 0;
          continue;
        }
        return finish({
          state,
          tracer,
          status: "failed",
          answer: stopMessage("unreadable_calls"),
          stopReason: "unreadable_calls",
        });
      }

      if (response.toolCalls.length === 0) {
        const answer = response.content.trim() || "(The model returned an empty answer.)";
        state.messages.push({ role: "assistant", content: answer });
        return finish({ state, tracer, status: "completed", answer });
      }

      const calls = uniqueInRun(response.toolCalls, state.messages, tracer);
      const assistant = {
        role: "assistant" as const,
        content: response.content,
        toolCalls: calls,
      };
      state.messages.push(assistant);
      // Before any call runs: a worker that dies from here on is continued with these calls, and
      // the model is not asked for this step again. The calls' `tool.requested` rows are written
      // meanwhile; each call waits for this checkpoint before it runs (`execute`).
      const checkpointed = writes.checkpoint(snapshotOf(state, []));
      checkpointed.catch(() => undefined); // awaited below; a call that waited for it saw it first
      const ran = await runCalls(calls, { ...env, checkpointed });
      await checkpointed;
      const outcomes = ran.outcomes;
      assistant.toolCalls = calls.map((c, i) => ran.sent[i] ?? c);
      insertResults(state.messages, outcomes);
      if (signal.aborted) return aborted(state, tracer, deps, limits);
      const settled = settleStep({ state, outcomes, pending: pendingOf(outcomes), tracer, deps, writes });
      if (settled) return settled;
    }
  } finally {
    own?.dispose();
  }
}

export function callEnv(
  state: State,
  deps: RuntimeDeps,
  tracer: Tracer,
  signal: AbortSignal,
  writes: RunWrites,
): CallEnv {
  return {
    registry: deps.registry,
    allowed: new Set(deps.toolNames ?? deps.registry.names()),
    policy: deps.policy,
    onToolEvent: deps.onToolEvent,
    run: state.run,
    tracer,
    signal,
    writes,
    untrustedSeen: () => hasSeenUntrusted(state.messages, state.run.userId),
  };
}

/** Longest reasoning text one trace line carries. */
const MAX_TRACE_TEXT = 4000;
function capTraceText(text: string): string {
  return text.length <= MAX_TRACE_TEXT
    ? text
    : `${text.slice(0, MAX_TRACE_TEXT)}… (${text.length} characters)`;
}

/**
 * Goes on with the fallback model, once per run, when one is configured: traced (and so shown in the
 * progress message) and kept in the run's snapshot. False when there is none or it is already in use.
 */
function switchToFallback({
  state,
  deps,
  tracer,
  reason,
  detail,
}: {
  state: State;
  deps: RuntimeDeps;
  tracer: Tracer;
  reason: "primary_unavailable" | "unreadable_output";
  detail: string;
}): boolean {
  if (!deps.fallbackModel || state.fallback) return false;
  state.fallback = { model: deps.fallbackModel.name, from: deps.model.name, reason, step: state.step };
  tracer.emit("model.fallback", { ...state.fallback, detail: detail.slice(0, 300) });
  return true;
}

/**
 * The step's model call had no room in a daily token budget, or the budgets could not be read (their
 * database is down: not the model's fault, so no fallback): the step did not happen.
 */
function stopForBudget(
  state: State,
  tracer: Tracer,
  err: BudgetExceededError | BudgetUnavailableError,
): TurnResult {
  state.step--;
  if (err instanceof BudgetUnavailableError) {
    tracer.emit("model.budget_unavailable", { error: errorMessage(err.cause ?? err) });
    return finish({
      state,
      tracer,
      status: "failed",
      answer: stopMessage("storage_unavailable", { error: err.message }),
      stopReason: "storage_unavailable",
    });
  }
  tracer.emit("model.budget_exceeded", { ...err.refusal });
  return finish({ state, tracer, status: "stopped", answer: err.message, stopReason: "budget" });
}

export function aborted(state: State, tracer: Tracer, deps: RuntimeDeps, limits: Limits): TurnResult {
  if (deps.signal?.aborted)
    return finish({
      state,
      tracer,
      status: "stopped",
      answer: stopMessage("cancelled"),
      stopReason: "cancelled",
    });
  return finish({
    state,
    tracer,
    status: "stopped",
    answer: stopMessage("turn_timeout", { budgetSeconds: Number((limits.turnTimeoutMs / 1000).toFixed(1)) }),
    stopReason: "turn_timeout",
  });
}
