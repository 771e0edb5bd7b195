import { randomUUID } from "node:crypto";
import type { RunIdentity } from "../../core/run-identity.ts";
import type {
  AssistantMessage,
  ChatMessage,
  MessageImage,
  ToolCall,
  ToolMessage,
  Usage,
} from "../context/messages.ts";
import { addUsage, emptyUsage } from "../context/messages.ts";
import { sanitizeHistory } from "../context/sanitize-history.ts";
import type { CallOutcome } from "./call-tools.ts";
import type { TurnResult, TurnStatus } from "./runtime-types.ts";
import { type FallbackSwitch, type PendingCall, type RunSnapshot, SNAPSHOT_VERSION } from "./snapshot.ts";
import type { StopReason } from "./stop-messages.ts";
import type { Tracer } from "./trace.ts";

/** A tool that failed `failures` times in a row in the step just settled. */
export interface FailureStreak {
  tool: string;
  failures: number;
  lastError: string | undefined;
}

/**
 * One run's state and the only way to change it: the loop, a resume and a continuation all go
 * through these operations, so what a checkpoint holds and what a result reports come from one place.
 * Made fresh for a turn (`start`) or from a stored snapshot (`fromSnapshot`, which copies: the
 * snapshot itself is never changed).
 */
export class RunState {
  readonly run: RunIdentity;
  #messages: ChatMessage[];
  #step: number;
  #usage: Usage;
  #modelCalls: number;
  #failures: Record<string, number>;
  #truncations: number;
  /** Replies in this turn whose calls no format could read (not kept in snapshots). */
  #unreadable = 0;
  #fallback: FallbackSwitch | undefined;

  private constructor(s: Omit<RunSnapshot, "version" | "pending">) {
    this.run = s.run;
    this.#messages = s.messages;
    this.#step = s.step;
    this.#usage = s.usage;
    this.#modelCalls = s.modelCalls;
    this.#failures = s.failures;
    this.#truncations = s.truncations;
    this.#fallback = s.fallback;
  }

  /** A new turn: the thread's history and the user's message. */
  static start(
    run: RunIdentity,
    history: ChatMessage[],
    userMessage: string,
    images?: MessageImage[],
  ): RunState {
    const message: ChatMessage = { role: "user", content: userMessage, author: run.userId };
    if (images && images.length > 0) message.images = images;
    return new RunState({
      run,
      messages: [...history, message],
      step: 0,
      usage: emptyUsage(),
      modelCalls: 0,
      failures: {},
      truncations: 0,
    });
  }

  /** The state a (checked) snapshot holds, as the loop runs on it. */
  static fromSnapshot(snapshot: RunSnapshot): RunState {
    return new RunState({
      run: snapshot.run,
      messages: [...snapshot.messages],
      step: snapshot.step,
      usage: snapshot.usage,
      modelCalls: snapshot.modelCalls,
      failures: { ...snapshot.failures },
      truncations: snapshot.truncations,
      fallback: snapshot.fallback,
    });
  }

  get messages(): readonly ChatMessage[] {
    return this.#messages;
  }
  get step(): number {
    return this.#step;
  }
  get usage(): Usage {
    return this.#usage;
  }
  get modelCalls(): number {
    return this.#modelCalls;
  }
  get fallback(): FallbackSwitch | undefined {
    return this.#fallback;
  }

  /** The history as a new array (for code that takes a mutable one; the state's own is not exposed). */
  history(): ChatMessage[] {
    return [...this.#messages];
  }

  /** The history after trimming or sanitizing (the same messages, fewer or summarized). */
  replaceHistory(messages: ChatMessage[]): void {
    this.#messages = messages;
  }

  append(message: ChatMessage): void {
    this.#messages.push(message);
  }

  /** Calls in history as the registry resolved them (names, repaired arguments), in the same message. */
  resolveCalls(message: AssistantMessage, calls: ToolCall[]): void {
    message.toolCalls = calls;
  }

  beginStep(): number {
    return ++this.#step;
  }

  /** The step did not happen (refused before the model was asked, or handed to the fallback model). */
  undoStep(): void {
    this.#step--;
  }

  countModelCall(usage: Usage): void {
    this.#modelCalls++;
    this.#usage = addUsage(this.#usage, {
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      totalTokens: usage.totalTokens,
      requests: 1,
    });
  }

  /** A reply cut off at the output limit; returns how many in a row. */
  countTruncation(): number {
    return ++this.#truncations;
  }

  clearTruncations(): void {
    this.#truncations = 0;
  }

  /** A reply whose calls no format could read; returns how many this turn. */
  countUnreadable(): number {
    return ++this.#unreadable;
  }

  /** Unreadable replies count afresh (the fallback model took over from one that wrote them). */
  clearUnreadable(): void {
    this.#unreadable = 0;
  }

  /** The run goes on with the fallback model from here (kept in its snapshots). */
  switchToFallback(to: FallbackSwitch): void {
    this.#fallback = to;
  }

  /** Tool results go right after their call message, in call order (pending ones get none yet). */
  insertResults(outcomes: CallOutcome[]): void {
    const messages = this.#messages;
    const results = outcomes.flatMap((o) => (o.kind === "result" ? [o.message] : []));
    if (results.length === 0) return;
    const at = resultsStart(messages);
    // The usual step: one result, right after its call message.
    if (results.length === 1 && at === messages.length) {
      messages.push(results[0]!);
      return;
    }
    const existing = messages.slice(at).filter((m): m is ToolMessage => m.role === "tool");
    const callMsg = messages[at - 1];
    const order = callMsg?.role === "assistant" ? (callMsg.toolCalls ?? []).map((c) => c.id) : [];
    const all = [...existing, ...results].sort(
      (a, b) => order.indexOf(a.toolCallId) - order.indexOf(b.toolCallId),
    );
    messages.splice(at, existing.length, ...all);
  }

  /**
   * Counts each tool's failures in a row over a step's results; the first tool that reached `max`
   * this step, if any.
   */
  countFailures(outcomes: CallOutcome[], max: number): FailureStreak | undefined {
    let streak: FailureStreak | undefined;
    for (const o of outcomes) {
      if (o.kind !== "result") continue;
      const name = o.call.name;
      const failures = o.failed ? (this.#failures[name] ?? 0) + 1 : 0;
      this.#failures[name] = failures;
      if (o.failed && failures >= max && !streak) streak = { tool: name, failures, lastError: o.error };
    }
    return streak;
  }

  /**
   * Call ids are unique within a response already; some servers reuse them across steps (`call_0`
   * every time). Within a run they must be unique too: results pair with calls by id, and a run
   * continued after a crash finds each call's audit rows by run and call id.
   */
  uniqueCallIds(calls: ToolCall[], tracer: Tracer): ToolCall[] {
    const used = new Set<string>();
    for (const m of this.#messages)
      if (m.role === "assistant") for (const c of m.toolCalls ?? []) used.add(c.id);
    if (!calls.some((c) => used.has(c.id))) return calls;
    return calls.map((c) => {
      if (!used.has(c.id)) return c;
      const id = `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      tracer.emit("tool.repair", {
        tool: c.name,
        callId: id,
        repairs: [`call id ${c.id} reused in this run`],
      });
      return { ...c, id };
    });
  }

  /** This moment's state as plain JSON (copies: a checkpoint written behind the run is not changed later). */
  snapshot(pending: PendingCall[]): RunSnapshot {
    return {
      version: SNAPSHOT_VERSION,
      run: this.run,
      messages: [...this.#messages],
      pending,
      step: this.#step,
      // Replaced on each model call, never changed in place: no copy needed.
      usage: this.#usage,
      modelCalls: this.#modelCalls,
      failures: { ...this.#failures },
      truncations: this.#truncations,
      ...(this.#fallback ? { fallback: this.#fallback } : {}),
    };
  }

  /** The run waits for people's decisions on `pending`; its snapshot goes with the result. */
  pause(pending: PendingCall[], tracer: Tracer): TurnResult {
    tracer.emit("run.end", { status: "paused", pending: pending.map((p) => p.tool) });
    return { ...this.result("paused", ""), snapshot: this.snapshot(pending) };
  }

  /** Ends the run: a run that did not complete gets its closing sentence as the last (sanitized) message. */
  finish({
    tracer,
    status,
    answer,
    stopReason,
  }: {
    tracer: Tracer;
    status: TurnStatus;
    answer: string;
    stopReason?: StopReason | undefined;
  }): TurnResult {
    if (status !== "completed")
      this.#messages = [...sanitizeHistory(this.#messages), { role: "assistant", content: answer }];
    tracer.emit("run.end", {
      status,
      stopReason,
      steps: this.#step,
      modelCalls: this.#modelCalls,
      usage: this.#usage,
      ...(this.#fallback ? { fallback: this.#fallback } : {}),
    });
    return { ...this.result(status, answer), ...(stopReason ? { stopReason } : {}) };
  }

  private result(status: TurnStatus, answer: string): TurnResult {
    return {
      status,
      runId: this.run.runId,
      answer,
      messages: this.#messages,
      usage: this.#usage,
      steps: this.#step,
      modelCalls: this.#modelCalls,
      ...(this.#fallback ? { fallback: this.#fallback } : {}),
    };
  }
}

/** Where the tool results after the last assistant message begin. */
function resultsStart(messages: readonly ChatMessage[]): number {
  let at = messages.length;
  while (at > 0 && messages[at - 1]!.role === "tool") at--;
  return at;
}

/**
 * Calls of the last assistant message that have no result yet: in a checkpoint, the calls a dead
 * worker was handling (or, in a paused snapshot, the ones waiting for a human).
 */
export function openCalls(messages: readonly ChatMessage[]): ToolCall[] {
  const at = resultsStart(messages);
  const callMsg = messages[at - 1];
  if (callMsg?.role !== "assistant" || !callMsg.toolCalls?.length) return [];
  const answered = new Set(messages.slice(at).flatMap((m) => (m.role === "tool" ? [m.toolCallId] : [])));
  return callMsg.toolCalls.filter((c) => !answered.has(c.id));
}
