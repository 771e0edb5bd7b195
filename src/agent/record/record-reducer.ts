import { callCost, type ModelPrices } from "../../core/model-prices.ts";
import type { ToolEvent } from "../run/policy-hook.ts";
import type { TraceEvent } from "../run/trace.ts";
import { type ChunkedMap, chunkedGet, chunkedSet, chunkedValues, emptyChunkedMap } from "./chunked-map.ts";
import type { DecidedApproval, RunStepDraft, RunStepKindDraft, RunTotalsDraft } from "./record-port.ts";

/**
 * A run's record as a pure function of its events: `(state, event) => { state, writes }`. Time comes
 * in on the event (`at`), so the same events always give the same rows; the writes go to the batch
 * writer (run-record-writer.ts), which merges them and sends them to the port.
 */

/** What the recorder is told: a trace or tool event, a write asked for, the run broken outside the loop. */
export type RunRecordEvent =
  | { type: "trace"; event: TraceEvent; at: number }
  | { type: "tool"; event: ToolEvent; at: number }
  /** `step`: that of a checkpoint that has just landed; without it, the latest event's. */
  | { type: "flush"; step?: number }
  | { type: "fail"; reason: string; error: string; at: number };

/** What one event adds to the run's totals (the writer adds them up until a write goes out). */
export type RunTotalsDelta = Pick<
  RunTotalsDraft,
  "modelCalls" | "promptTokens" | "completionTokens" | "costUsd" | "models" | "modelMs" | "toolMs"
> & { final?: { modelCalls: number; promptTokens: number; completionTokens: number } };

/** What the record changes by: a row (new, or again with the same `seq`), totals, the stop reason, a write asked for. */
export type RunRecordChange =
  | { kind: "row"; row: RunStepDraft }
  | { kind: "totals"; totals: RunTotalsDelta }
  | { kind: "stop"; reason: string }
  /** A write is asked for, as of this step (a checkpoint, a step's first tool start, the end). */
  | { kind: "flush"; step: number };

interface ModelStart {
  at: number;
  model: string | undefined;
  retries: number;
}

export interface RunRecordState {
  readonly prices: ModelPrices;
  /** The run's decided approvals, shown on the rows of the calls they decided. */
  readonly approvals: Readonly<Record<string, DecidedApproval>>;
  readonly nextSeq: number;
  readonly step: number;
  /** Rows are never changed in place: an event that changes one replaces it (the writer may hold the old one). */
  readonly toolRows: ChunkedMap<RunStepDraft>;
  readonly lastModel: RunStepDraft | undefined;
  readonly modelStart: ModelStart | undefined;
  readonly toolStartFlushedStep: number;
  /** Tool time is the union of the calls' intervals (calls of a step run concurrently). */
  readonly activeTools: number;
  readonly activeSince: number;
  readonly modelsSeen: ReadonlySet<string>;
}

/** Longest result text kept in memory for a preview (the store redacts, then caps it shorter). */
const RESULT_TEXT = 2000;

export function initialRunRecordState(o: {
  prices: ModelPrices;
  approvals?: Record<string, DecidedApproval>;
  /** From `port.reopen` when a stored run goes on; 1 for a new run. */
  nextSeq?: number;
}): RunRecordState {
  return {
    prices: o.prices,
    approvals: o.approvals ?? {},
    nextSeq: o.nextSeq ?? 1,
    step: 0,
    toolRows: emptyChunkedMap,
    lastModel: undefined,
    modelStart: undefined,
    toolStartFlushedStep: -1,
    activeTools: 0,
    activeSince: 0,
    modelsSeen: new Set(),
  };
}

type Draft = { -readonly [K in keyof RunRecordState]: RunRecordState[K] };

/** One event's work: a copy of the state, the rows it touched (copies, edited freely until emitted). */
interface Work {
  s: Draft;
  at: number;
  touched: Map<number, RunStepDraft>;
  totals: RunTotalsDelta | undefined;
  stop: string | undefined;
  flush: number | undefined;
}

export function reduceRunRecord(
  state: RunRecordState,
  event: RunRecordEvent,
): { state: RunRecordState; writes: RunRecordChange[] } {
  const w: Work = {
    s: { ...state },
    at: event.type === "flush" ? 0 : event.at,
    touched: new Map(),
    totals: undefined,
    stop: undefined,
    flush: undefined,
  };
  switch (event.type) {
    case "trace":
      onTraceEvent(w, event.event);
      break;
    case "tool":
      onToolEvent(w, event.event);
      break;
    case "flush":
      w.flush = event.step ?? w.s.step;
      break;
    case "fail": {
      w.stop = event.reason;
      const row = addRow(w, "note", "error", "error");
      row.data.error = event.error;
      w.flush = w.s.step;
      break;
    }
  }
  const writes: RunRecordChange[] = [];
  for (const row of w.touched.values()) writes.push({ kind: "row", row });
  if (w.totals) writes.push({ kind: "totals", totals: w.totals });
  if (w.stop !== undefined) writes.push({ kind: "stop", reason: w.stop });
  // Last: the write it asks for carries everything this event changed.
  if (w.flush !== undefined) writes.push({ kind: "flush", step: w.flush });
  return { state: w.s, writes };
}

function totals(w: Work): RunTotalsDelta {
  w.totals ??= {
    modelCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    models: [],
    modelMs: 0,
    toolMs: 0,
  };
  return w.totals;
}

/** An editable copy of a row, once per event (the stored one stays as it was written). */
function touch(w: Work, row: RunStepDraft): RunStepDraft {
  const seen = w.touched.get(row.seq);
  if (seen) return seen;
  const copy = { ...row, data: { ...row.data } };
  w.touched.set(row.seq, copy);
  return copy;
}

function addRow(
  w: Work,
  kind: RunStepKindDraft,
  name: string | null,
  status: string | null,
  at = w.at,
): RunStepDraft {
  const row: RunStepDraft = {
    seq: w.s.nextSeq++,
    step: w.s.step,
    kind,
    name,
    status,
    startedAt: new Date(at),
    durationMs: 0,
    promptTokens: null,
    completionTokens: null,
    costUsd: null,
    data: {},
  };
  w.touched.set(row.seq, row);
  return row;
}

function toolRow(w: Work, callId: string, tool: string): RunStepDraft {
  const known = chunkedGet(w.s.toolRows, callId);
  if (known && w.touched.get(known.seq) === known) return known;
  let row: RunStepDraft;
  if (known) row = touch(w, known);
  else {
    row = addRow(w, "tool", tool, null);
    row.data.callId = callId;
    const approval = w.s.approvals[callId];
    if (approval) row.data.approval = { ...approval };
  }
  w.s.toolRows = chunkedSet(w.s.toolRows, callId, row);
  return row;
}

function modelRow(w: Work, e: TraceEvent, status: string): RunStepDraft {
  const start = w.s.modelStart;
  const at = start?.at ?? w.at;
  const answered = typeof e.answeredBy === "string" ? e.answeredBy : undefined;
  const model = answered ?? (typeof e.model === "string" ? e.model : (start?.model ?? null));
  const row = addRow(w, "model", model, status, at);
  row.durationMs = w.at - at;
  totals(w).modelMs += row.durationMs;
  if (start?.retries) row.data.retries = start.retries;
  w.s.modelStart = undefined;
  return row;
}

function onModelResponse(w: Work, e: TraceEvent) {
  const row = modelRow(w, e, e.finishReason === "length" ? "truncated" : "ok");
  const usage = (e.usage ?? {}) as { promptTokens?: number; completionTokens?: number };
  const prompt = usage.promptTokens ?? 0;
  const completion = usage.completionTokens ?? 0;
  row.promptTokens = prompt;
  row.completionTokens = completion;
  const names = [e.answeredBy, e.model].filter((n): n is string => typeof n === "string");
  row.costUsd = callCost(w.s.prices, names, { promptTokens: prompt, completionTokens: completion });
  if (typeof e.model === "string" && e.model !== row.name) row.data.configuredModel = e.model;
  Object.assign(row.data, {
    finishReason: e.finishReason,
    latencyMs: e.latencyMs,
    toolCalls: e.toolCalls,
    contentChars: e.contentChars,
    messages: e.messages,
    tokensSent: e.tokens,
    ...(Array.isArray(e.repairs) && e.repairs.length > 0 ? { repairs: e.repairs } : {}),
  });
  const t = totals(w);
  t.modelCalls++;
  t.promptTokens += prompt;
  t.completionTokens += completion;
  t.costUsd = row.costUsd;
  if (row.name && !w.s.modelsSeen.has(row.name)) {
    w.s.modelsSeen = new Set(w.s.modelsSeen).add(row.name);
    t.models.push(row.name);
  }
  w.s.lastModel = row;
}

function onLastModel(w: Work, fields: Record<string, unknown>, status?: string) {
  if (!w.s.lastModel) return;
  const row = touch(w, w.s.lastModel);
  Object.assign(row.data, fields);
  if (status) row.status = status;
  w.s.lastModel = row;
}

function endRun(w: Work, e: TraceEvent) {
  if (e.status === "paused") {
    // In the order the calls were first seen (their seq).
    const calls = chunkedValues(w.s.toolRows).sort((a, b) => a.seq - b.seq);
    for (const row of calls) {
      if (row.status !== "pending") continue;
      const wait = addRow(w, "approval", row.name, "pending");
      wait.data.callId = row.data.callId;
      const policy = row.data.policy as { reason?: unknown } | undefined;
      if (policy?.reason) wait.data.reason = policy.reason;
    }
  } else {
    if (typeof e.stopReason === "string") w.stop = e.stopReason;
    const usage = e.usage as { promptTokens?: number; completionTokens?: number } | undefined;
    if (typeof e.modelCalls === "number" && usage)
      totals(w).final = {
        modelCalls: e.modelCalls,
        promptTokens: usage.promptTokens ?? 0,
        completionTokens: usage.completionTokens ?? 0,
      };
  }
  w.flush = w.s.step;
}

function onTraceEvent(w: Work, e: TraceEvent) {
  w.s.step = e.step;
  switch (e.event) {
    case "model.request":
      w.s.modelStart = { at: w.at, model: typeof e.model === "string" ? e.model : undefined, retries: 0 };
      return;
    case "model.retry":
      if (w.s.modelStart) w.s.modelStart = { ...w.s.modelStart, retries: w.s.modelStart.retries + 1 };
      return;
    case "model.response":
      return onModelResponse(w, e);
    case "model.error": {
      const row = modelRow(w, e, "error");
      row.data.error = e.error;
      return;
    }
    case "model.reasoning":
      return onLastModel(w, { reasoningChars: e.chars });
    case "model.format":
      return onLastModel(w, { formatRecovered: e.format, formatFrom: e.from });
    case "model.truncated":
      return onLastModel(w, { truncated: true });
    case "model.unrecovered":
      return onLastModel(w, { unrecovered: e.marker }, "unreadable");
    case "model.fallback": {
      const row = addRow(w, "note", "fallback", null);
      Object.assign(row.data, { from: e.from, model: e.model, reason: e.reason, detail: e.detail });
      return;
    }
    case "context.trimmed": {
      const row = addRow(
        w,
        "context",
        e.summarized ? "summarized" : "trimmed",
        e.summaryError ? "error" : "ok",
      );
      Object.assign(row.data, {
        tokens: e.tokens,
        shrunkResults: e.shrunkResults,
        droppedUnits: e.droppedUnits,
        summarized: e.summarized,
        overBudget: e.overBudget,
        ...(e.summaryError ? { summaryError: e.summaryError } : {}),
      });
      return;
    }
    case "history.sanitized": {
      const row = addRow(w, "context", "sanitized", "ok");
      Object.assign(row.data, { before: e.before, after: e.after });
      return;
    }
    case "tool.repair":
    case "tool.coerced":
    case "tool.dropped_keys": {
      if (typeof e.callId !== "string" || !e.tool) return;
      const row = toolRow(w, e.callId, e.tool);
      if (e.event === "tool.repair") row.data.repairs = e.repairs;
      else if (e.event === "tool.coerced") row.data.coerced = e.coerced;
      else row.data.dropped = e.dropped;
      return;
    }
    case "tool.validation_error":
    case "tool.unknown": {
      if (typeof e.callId !== "string" || !e.tool) return;
      const row = toolRow(w, e.callId, e.tool);
      row.status = e.event === "tool.unknown" ? "unknown_tool" : "invalid_args";
      row.data.error = e.error;
      return;
    }
    case "tool.policy": {
      if (typeof e.callId !== "string" || !e.tool) return;
      const row = toolRow(w, e.callId, e.tool);
      row.data.policy = {
        decision: e.decision,
        ...(e.reason ? { reason: e.reason } : {}),
        ...(e.approved ? { approved: true } : {}),
      };
      if (e.decision === "deny") row.status = "denied";
      else if (e.decision === "needs_approval") row.status = "pending";
      else row.status = "allowed";
      return;
    }
    case "tool.start": {
      if (typeof e.callId !== "string" || !e.tool) return;
      const row = toolRow(w, e.callId, e.tool);
      row.status = "running";
      row.startedAt = new Date(w.at);
      if (w.s.activeTools++ === 0) w.s.activeSince = w.at;
      // A step's first tool start is written at once: a crash mid-tool shows which tool was running.
      if (w.s.toolStartFlushedStep !== w.s.step) {
        w.s.toolStartFlushedStep = w.s.step;
        w.flush = w.s.step;
      }
      return;
    }
    case "tool.end": {
      if (typeof e.callId !== "string" || !e.tool) return;
      const row = toolRow(w, e.callId, e.tool);
      row.status = e.ok ? "ok" : "error";
      row.durationMs = typeof e.durationMs === "number" ? e.durationMs : w.at - row.startedAt.getTime();
      Object.assign(row.data, { attempts: e.attempts, chars: e.chars, capped: e.capped });
      if (e.error) row.data.error = e.error;
      if (w.s.activeTools > 0 && --w.s.activeTools === 0) totals(w).toolMs += w.at - w.s.activeSince;
      return;
    }
    case "note": {
      const row = addRow(w, "note", null, null);
      row.data.note = e.note;
      return;
    }
    case "run.resume": {
      const row = addRow(w, "note", e.recovered ? "continued" : "resumed", null);
      row.data.decisions = e.decisions;
      return;
    }
    case "run.end":
      return endRun(w, e);
    default:
      return;
  }
}

function onToolEvent(w: Work, e: ToolEvent) {
  const row = toolRow(w, e.callId, e.tool);
  switch (e.action) {
    case "tool.requested":
      row.data.args = e.args;
      return;
    case "tool.executed":
      if (typeof e.resultSummary === "string") row.data.resultPreview = e.resultSummary.slice(0, RESULT_TEXT);
      return;
    case "tool.failed":
      if (e.error) row.data.error = e.error;
      if (!row.status || row.status === "allowed" || row.status === "running") row.status = "error";
      return;
    case "tool.denied":
      row.status = "denied";
      row.data.policy ??= { decision: "deny", reason: e.reason };
      return;
    default:
      return;
  }
}
