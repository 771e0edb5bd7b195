import { errorMessage } from "../../core/errors.ts";
import type { ToolSpec } from "../../tools/tool-spec.ts";
import { BudgetExceededError, BudgetUnavailableError } from "../budget/budget-guard.ts";
import { fitToBudget } from "../context/context-budget.ts";
import type { ChatMessage } from "../context/messages.ts";
import { quoteOtherAuthors } from "../context/quote-other-authors.ts";
import { sanitizeHistory } from "../context/sanitize-history.ts";
import { summarizeWithModel } from "../context/summarize.ts";
import {
  specsTokens,
  specsTokensUpperBound,
  textTokens,
  textTokensUpperBound,
} from "../context/token-count.ts";
import type { ChatModel, ModelResponse } from "../model/chat-model.ts";
import { type CallEnv, type CallOutcome, pendingOf, runCalls } from "./call-tools.ts";
import type { RunWrites } from "./checkpoint-writes.ts";
import { DEFAULT_LIMITS, type Limits, type RuntimeDeps, type TurnResult } from "./runtime-types.ts";
import type { PendingCall } from "./snapshot.ts";
import type { RunState } from "./state.ts";
import type { LastStep } from "./stop-rules.ts";
import type { Tracer } from "./trace.ts";
import { hasSeenUntrusted } from "./untrusted-seen.ts";

/**
 * One step of a run: prepare the request (history fitted to the context budget, sanitized, with any
 * hint from the step before), call the model, then handle its reply (an answer, calls to run, or a
 * reply to ask again for). Each part returns a small result; the loop decides from it whether to go on.
 */

/** What a run's steps share; `hints` carry what the next request must tell the model. */
export interface StepContext {
  state: RunState;
  deps: RuntimeDeps;
  tracer: Tracer;
  writes: RunWrites;
  signal: AbortSignal;
  limits: Limits;
  specs: ToolSpec[];
  env: CallEnv;
  systemPrompt: string;
  hints: { truncated: boolean; unreadable: string | undefined };
}

/** How a step ended: the run's result (an answer or a pause), or what the stop rules look at next. */
export type StepEnd = { kind: "end"; result: TurnResult } | LastStep;

type Prepared =
  | { kind: "ready"; messages: ChatMessage[]; tokens: number }
  | { kind: "refused"; error: BudgetExceededError | BudgetUnavailableError };

type Called = { kind: "response"; response: ModelResponse } | { kind: "failed"; error: unknown };

export async function takeStep(ctx: StepContext): Promise<StepEnd> {
  ctx.tracer.step = ctx.state.beginStep();
  const prepared = await prepareRequest(ctx);
  if (prepared.kind === "refused") return refused(ctx, prepared.error);
  const called = await callModel(ctx, prepared);
  return called.kind === "failed" ? modelFailed(ctx, called.error) : handleResponse(ctx, called.response);
}

/** The model this step asks: the fallback once the run switched to it. */
function modelOf({ state, deps }: StepContext): ChatModel {
  return state.fallback && deps.fallbackModel ? deps.fallbackModel : deps.model;
}

/** The history fitted to the context budget and sanitized, as the request's messages. */
export async function prepareRequest(ctx: StepContext): Promise<Prepared> {
  const { state, tracer, specs, systemPrompt, hints, signal } = ctx;
  let summaryRefused: BudgetExceededError | BudgetUnavailableError | undefined;
  const current = state.history();
  const budget = await fitToBudget(current, {
    budgetTokens: ctx.limits.contextBudgetTokens,
    fixedTokens: () => textTokens(systemPrompt) + specsTokens(specs) + modelOf(ctx).maxOutputTokens,
    fixedTokensUpperBound:
      textTokensUpperBound(systemPrompt) + specsTokensUpperBound(specs) + modelOf(ctx).maxOutputTokens,
    summarize: (i) =>
      summarizeWithModel(modelOf(ctx), i, signal, (u) => state.countModelCall(u)).catch((err: unknown) => {
        if (err instanceof BudgetExceededError || err instanceof BudgetUnavailableError) summaryRefused = err;
        throw err;
      }),
  });
  // No budget for the summary: the history stays as it was (nothing dropped unsummarized) and the
  // run stops as it would at the model call.
  if (summaryRefused) return { kind: "refused", error: summaryRefused };
  if (budget.messages !== current) {
    state.replaceHistory(budget.messages);
    tracer.emit("context.trimmed", {
      tokens: budget.tokens,
      shrunkResults: budget.shrunkResults,
      droppedUnits: budget.droppedUnits,
      summarized: budget.summarized,
      summaryError: budget.summaryError,
      overBudget: budget.overBudget,
      ...(budget.summaryError ? { note: "summary failed: oldest units were dropped without a summary" } : {}),
    });
  }
  const history = sanitizeHistory(state.messages);
  if (history.length !== state.messages.length)
    tracer.emit("history.sanitized", { before: state.messages.length, after: history.length });
  state.replaceHistory(history);
  const messages: ChatMessage[] = [
    { role: "system", content: systemPrompt },
    ...quoteOtherAuthors(history, state.run.userId),
  ];
  if (hints.truncated) {
    messages.push({
      role: "system",
      content:
        "Your previous reply was cut off at the output limit. Reply more briefly and keep tool arguments short.",
    });
  }
  if (hints.unreadable) {
    messages.push({
      role: "system",
      content: `Your previous reply tried to call a tool, but the call could not be read (it contained \`${hints.unreadable}\`). Call the tool again through the tool-calling interface, with its arguments as one JSON object, or answer in plain text.`,
    });
  }
  return { kind: "ready", messages, tokens: budget.tokens };
}

/** Asks the model, traced before and after; the reply's usage is counted. */
export async function callModel(
  ctx: StepContext,
  prepared: Extract<Prepared, { kind: "ready" }>,
): Promise<Called> {
  const { state, tracer, deps, specs } = ctx;
  const model = modelOf(ctx);
  const sent = {
    model: model.name,
    messages: prepared.messages.length,
    tools: specs.length,
    tokens: prepared.tokens,
  };
  tracer.emit("model.request", sent);
  let response: ModelResponse;
  try {
    response = await model.complete({
      messages: prepared.messages,
      tools: specs,
      signal: ctx.signal,
      onRetry: (info) => tracer.emit("model.retry", info),
      // Answer text as it is written, for a live display (none: the model is not asked to stream).
      ...(deps.onTraceEvent ? { onText: (delta: string) => tracer.emit("model.text", { delta }) } : {}),
    });
  } catch (error) {
    return { kind: "failed", error };
  }
  state.countModelCall(response.usage);
  tracer.spans?.chatContent(prepared.messages, response.content);
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
    ...(response.usageDetails ? { usageDetails: response.usageDetails } : {}),
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
  return { kind: "response", response };
}

/** The model call threw: the turn's signal, a budget refusal, or a model that could not answer. */
function modelFailed(ctx: StepContext, err: unknown): StepEnd {
  const { state, tracer, deps, signal } = ctx;
  if (signal.aborted) return { kind: "aborted", cancelled: deps.signal?.aborted === true };
  // Refused before the model was asked: no reply, so no call of this step runs.
  if (err instanceof BudgetExceededError || err instanceof BudgetUnavailableError) return refused(ctx, err);
  tracer.emit("model.error", { error: errorMessage(err) });
  if (switchToFallback(ctx, "primary_unavailable", errorMessage(err))) {
    state.undoStep(); // the step was not done: the fallback model takes it
    return { kind: "next" };
  }
  return { kind: "model_error", error: errorMessage(err) };
}

/**
 * The step's model call had no room in a daily token budget, or the budgets could not be read (their
 * database is down: not the model's fault, so no fallback): the step did not happen.
 */
function refused(ctx: StepContext, error: BudgetExceededError | BudgetUnavailableError): StepEnd {
  ctx.state.undoStep();
  if (error instanceof BudgetUnavailableError)
    ctx.tracer.emit("model.budget_unavailable", { error: errorMessage(error.cause ?? error) });
  else ctx.tracer.emit("model.budget_exceeded", { ...error.refusal });
  return { kind: "refused", error };
}

/** A reply: cut off (ask again), calls nothing could read (ask again or switch), an answer, or calls to run. */
export async function handleResponse(ctx: StepContext, response: ModelResponse): Promise<StepEnd> {
  const { state, tracer, hints, limits } = ctx;
  if (response.finishReason === "length") {
    const count = state.countTruncation();
    tracer.emit("model.truncated", { count, toolCalls: response.toolCalls.length });
    hints.truncated = true; // truncated output is never executed nor kept: ask again
    return { kind: "truncated", count };
  }
  state.clearTruncations();
  hints.truncated = false;
  hints.unreadable = undefined;

  if (response.toolCalls.length === 0 && response.unrecovered) {
    // The model tried to call a tool and no format reads it: never shown as an answer.
    const count = state.countUnreadable();
    tracer.emit("model.unrecovered", { marker: response.unrecovered, count });
    if (count < limits.maxUnreadable) {
      hints.unreadable = response.unrecovered;
      return { kind: "next" };
    }
    if (switchToFallback(ctx, "unreadable_output", response.unrecovered)) {
      state.clearUnreadable();
      return { kind: "next" };
    }
    return { kind: "unreadable" };
  }

  if (response.toolCalls.length === 0) {
    const answer = response.content.trim() || "(The model returned an empty answer.)";
    state.append({ role: "assistant", content: answer });
    return { kind: "end", result: state.finish({ tracer, status: "completed", answer }) };
  }
  return runStepCalls(ctx, response);
}

/** The reply's calls: checkpointed before any runs, run, their results kept in order, then settled. */
async function runStepCalls(ctx: StepContext, response: ModelResponse): Promise<StepEnd> {
  const { state, tracer, writes, env, signal } = ctx;
  const calls = state.uniqueCallIds(response.toolCalls, tracer);
  const assistant = { role: "assistant" as const, content: response.content, toolCalls: calls };
  state.append(assistant);
  // Before any call runs: a worker that dies from here on is continued with these calls, and the
  // model is not asked for this step again. The calls' `tool.requested` rows are written meanwhile;
  // each call waits for this checkpoint before it runs (`execute`).
  const checkpointed = writes.checkpoint(state.snapshot([]));
  checkpointed.catch(() => undefined); // awaited below; a call that waited for it saw it first
  const ran = await runCalls(calls, { ...env, checkpointed });
  await checkpointed;
  state.resolveCalls(
    assistant,
    calls.map((c, i) => ran.sent[i] ?? c),
  );
  state.insertResults(ran.outcomes);
  if (signal.aborted) return { kind: "aborted", cancelled: ctx.deps.signal?.aborted === true };
  return settleCalls(ctx, ran.outcomes, pendingOf(ran.outcomes));
}

/**
 * After a step's calls have their results: count failures, pause for the calls that wait for a
 * person, report a tool that failed too often in a row; otherwise checkpoint the run (the next
 * step's model call need not wait for it, `checkpoint-writes.ts`; the run's end does) and go on.
 */
export function settleCalls(
  { state, tracer, writes, deps }: Pick<StepContext, "state" | "tracer" | "writes" | "deps">,
  outcomes: CallOutcome[],
  pending: PendingCall[],
): StepEnd {
  const max = deps.limits?.maxConsecutiveFailures ?? DEFAULT_LIMITS.maxConsecutiveFailures;
  const streak = state.countFailures(outcomes, max);
  if (pending.length > 0) return { kind: "end", result: state.pause(pending, tracer) };
  if (streak) return { kind: "repeated_failure", streak };
  writes.checkpointBehind(state.snapshot([]));
  return { kind: "next" };
}

/**
 * Goes on with the fallback model, once per run, when one is configured: traced (and so shown in the
 * progress message) and kept in the run's snapshot. False when there is none or it is already in use.
 */
function switchToFallback(
  { state, deps, tracer }: StepContext,
  reason: "primary_unavailable" | "unreadable_output",
  detail: string,
): boolean {
  if (!deps.fallbackModel || state.fallback) return false;
  const to = { model: deps.fallbackModel.name, from: deps.model.name, reason, step: state.step };
  state.switchToFallback(to);
  tracer.emit("model.fallback", { ...to, detail: detail.slice(0, 300) });
  return true;
}

/** What the run's calls are handled with (the registry, policy, audit sink, and the run's writes). */
export function callEnv(
  state: RunState,
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
