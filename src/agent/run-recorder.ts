import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { callCost, type ModelPrices } from "./model-prices.ts";
import type { ToolEvent } from "./policy-hook.ts";
import type {
  DecidedApproval,
  RunRecordPort,
  RunRecordWrite,
  RunStepDraft,
  RunStepKindDraft,
  RunTotalsDraft,
} from "./run-record-port.ts";
import type { TraceEvent } from "./trace.ts";

/**
 * Turns one run's trace and tool events into its record as it runs. Events only update rows in
 * memory (the loop's hot path stays a few property writes); rows and totals go to the port at step
 * boundaries — `flush()` at each checkpoint, the first tool start of a step (so a crash mid-tool shows
 * which tool was running) and the end — one write each, chained so they land in order. A write that
 * fails is logged and never fails the run.
 */
export interface RunRecorder {
  onTraceEvent(e: TraceEvent): void;
  onToolEvent(e: ToolEvent): void;
  /**
   * Writes what changed since the last write (not awaited by the loop), with the run's step count as
   * of this call: `step`, that of a checkpoint that has just landed (the run may be further along by
   * then: a checkpoint lands behind it, see `agent/run-writes.ts`); without it, the latest event's.
   */
  flush(o?: { step?: number }): void;
  /** The run broke outside the loop (the worker's catch): a note with the error, then a write. */
  fail(reason: string, error: string): void;
  /**
   * Resolves once every write asked for so far has landed (or failed and was logged), or after
   * `maxMs` (default 5 s): an unreachable database never holds up the user's answer for long.
   */
  settled(maxMs?: number): Promise<void>;
}

export interface RunRecorderOptions {
  port: RunRecordPort;
  runId: string;
  prices: ModelPrices;
  logger: Logger;
  /** A new run's request (stored redacted and capped); absent when a stored run goes on. */
  requestText?: string;
  /** From `port.reopen` when a stored run goes on; 1 for a new run. */
  nextSeq?: number;
  /** The run's decided approvals (from `port.reopen`), shown on the rows of the calls they decided. */
  approvals?: Record<string, DecidedApproval>;
  now?: () => number;
}

/** Longest a worker waits for the record's last write before it goes on (see `settled`). */
const SETTLE_MS = 5000;

/** Longest result text kept in memory for a preview (the store redacts, then caps it shorter). */
const RESULT_TEXT = 2000;

interface Row extends RunStepDraft {
  startMs: number;
}

export function createRunRecorder(o: RunRecorderOptions): RunRecorder {
  const now = o.now ?? Date.now;
  let seq = o.nextSeq ?? 1;
  let step = 0;
  let requestText = o.requestText;
  let stopReason: string | undefined;
  let stopReasonChanged = false;
  const dirty = new Set<Row>();
  const toolRows = new Map<string, Row>();
  const modelsSeen = new Set<string>();
  let lastModel: Row | undefined;
  let modelStart: { at: number; model: string | undefined; retries: number } | undefined;
  let toolStartFlushedStep = -1;
  // Tool time is the union of the calls' intervals (calls of a step run concurrently).
  let activeTools = 0;
  let activeSince = 0;
  let lastWriteAt = now();
  let totals = emptyTotals();
  let costUnknown = false;
  let inFlight: Promise<void> | undefined;
  let wanted = false;
  // The step count the next write carries: the highest as of the flushes it answers.
  let flushStep: number | undefined;

  /** What changed since the last write, taken out of the buffers (and how to put it back on failure). */
  function takeBatch(): { batch: RunRecordWrite; putBack(): void } | undefined {
    const at = now();
    // Nothing new since the last write (e.g. a checkpoint right after one): no round trip.
    if (dirty.size === 0 && requestText === undefined && !stopReasonChanged && quiet(totals))
      return undefined;
    const taken = [...dirty];
    dirty.clear();
    const delta = totals;
    delta.step = flushStep ?? step;
    flushStep = undefined;
    delta.ownMs = Math.max(0, at - lastWriteAt - delta.modelMs - delta.toolMs);
    if (costUnknown) delta.costUsd = null;
    lastWriteAt = at;
    totals = emptyTotals();
    const sentRequest = requestText;
    const batch: RunRecordWrite = {
      runId: o.runId,
      steps: taken.map(({ startMs: _, ...r }) => ({ ...r, data: { ...r.data } })),
      totals: delta,
      ...(sentRequest !== undefined ? { requestText: sentRequest } : {}),
      ...(stopReason !== undefined ? { stopReason } : {}),
    };
    requestText = undefined;
    const sentStop = stopReasonChanged;
    stopReasonChanged = false;
    return {
      batch,
      putBack() {
        for (const row of taken) dirty.add(row);
        addTotals(totals, delta);
        requestText ??= sentRequest;
        stopReasonChanged ||= sentStop;
      },
    };
  }

  function emptyTotals(): RunTotalsDraft {
    return {
      step: 0,
      modelCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
      models: [],
      modelMs: 0,
      toolMs: 0,
      ownMs: 0,
    };
  }

  function addRow(kind: RunStepKindDraft, name: string | null, status: string | null, at = now()): Row {
    const row: Row = {
      seq: seq++,
      step,
      kind,
      name,
      status,
      startedAt: new Date(at),
      startMs: at,
      durationMs: 0,
      promptTokens: null,
      completionTokens: null,
      costUsd: null,
      data: {},
    };
    dirty.add(row);
    return row;
  }

  function toolRow(callId: string, tool: string): Row {
    let row = toolRows.get(callId);
    if (!row) {
      row = addRow("tool", tool, null);
      row.data.callId = callId;
      const approval = o.approvals?.[callId];
      if (approval) row.data.approval = { ...approval };
      toolRows.set(callId, row);
    }
    dirty.add(row);
    return row;
  }

  function modelRow(e: TraceEvent, status: string): Row {
    const at = modelStart?.at ?? now();
    const answered = typeof e.answeredBy === "string" ? e.answeredBy : undefined;
    const model = answered ?? (typeof e.model === "string" ? e.model : (modelStart?.model ?? null));
    const row = addRow("model", model, status, at);
    row.durationMs = now() - at;
    totals.modelMs += row.durationMs;
    if (modelStart?.retries) row.data.retries = modelStart.retries;
    modelStart = undefined;
    return row;
  }

  function onModelResponse(e: TraceEvent) {
    const row = modelRow(e, e.finishReason === "length" ? "truncated" : "ok");
    const usage = (e.usage ?? {}) as { promptTokens?: number; completionTokens?: number };
    const prompt = usage.promptTokens ?? 0;
    const completion = usage.completionTokens ?? 0;
    row.promptTokens = prompt;
    row.completionTokens = completion;
    const names = [e.answeredBy, e.model].filter((n): n is string => typeof n === "string");
    row.costUsd = callCost(o.prices, names, { promptTokens: prompt, completionTokens: completion });
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
    totals.modelCalls++;
    totals.promptTokens += prompt;
    totals.completionTokens += completion;
    if (row.costUsd === null) costUnknown = true;
    else if (totals.costUsd !== null) totals.costUsd += row.costUsd;
    if (row.name && !modelsSeen.has(row.name)) {
      modelsSeen.add(row.name);
      totals.models.push(row.name);
    }
    lastModel = row;
  }

  function onLastModel(fields: Record<string, unknown>, status?: string) {
    if (!lastModel) return;
    Object.assign(lastModel.data, fields);
    if (status) lastModel.status = status;
    dirty.add(lastModel);
  }

  function endRun(e: TraceEvent) {
    if (e.status === "paused") {
      for (const row of toolRows.values()) {
        if (row.status !== "pending") continue;
        const wait = addRow("approval", row.name, "pending");
        wait.data.callId = row.data.callId;
        const policy = row.data.policy as { reason?: unknown } | undefined;
        if (policy?.reason) wait.data.reason = policy.reason;
      }
    } else {
      if (typeof e.stopReason === "string") {
        stopReason = e.stopReason;
        stopReasonChanged = true;
      }
      const usage = e.usage as { promptTokens?: number; completionTokens?: number } | undefined;
      if (typeof e.modelCalls === "number" && usage)
        totals.final = {
          modelCalls: e.modelCalls,
          promptTokens: usage.promptTokens ?? 0,
          completionTokens: usage.completionTokens ?? 0,
        };
    }
    recorder.flush();
  }

  /**
   * One write in flight at a time: flushes meanwhile coalesce into the next one, so a slow or
   * unreachable database holds at most one write and one batch, never a queue of them.
   */
  function writeChanges() {
    if (inFlight) {
      wanted = true;
      return;
    }
    const write = takeBatch();
    if (!write) return;
    inFlight = o.port
      .write(write.batch)
      .catch((err: unknown) => {
        o.logger.warn(
          { runId: o.runId, err: errorMessage(err) },
          "run record not written; kept for the next write",
        );
        write.putBack();
      })
      .then(() => {
        inFlight = undefined;
        if (wanted) {
          wanted = false;
          writeChanges();
        }
      });
  }

  const recorder: RunRecorder = {
    onTraceEvent(e) {
      step = e.step;
      switch (e.event) {
        case "model.request":
          modelStart = { at: now(), model: typeof e.model === "string" ? e.model : undefined, retries: 0 };
          return;
        case "model.retry":
          if (modelStart) modelStart.retries++;
          return;
        case "model.response":
          return onModelResponse(e);
        case "model.error": {
          const row = modelRow(e, "error");
          row.data.error = e.error;
          return;
        }
        case "model.reasoning":
          return onLastModel({ reasoningChars: e.chars });
        case "model.format":
          return onLastModel({ formatRecovered: e.format, formatFrom: e.from });
        case "model.truncated":
          return onLastModel({ truncated: true });
        case "model.unrecovered":
          return onLastModel({ unrecovered: e.marker }, "unreadable");
        case "model.fallback": {
          const row = addRow("note", "fallback", null);
          Object.assign(row.data, { from: e.from, model: e.model, reason: e.reason, detail: e.detail });
          return;
        }
        case "context.trimmed": {
          const row = addRow(
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
          const row = addRow("context", "sanitized", "ok");
          Object.assign(row.data, { before: e.before, after: e.after });
          return;
        }
        case "tool.repair":
        case "tool.coerced":
        case "tool.dropped_keys": {
          if (typeof e.callId !== "string" || !e.tool) return;
          const row = toolRow(e.callId, e.tool);
          const key =
            e.event === "tool.repair" ? "repairs" : e.event === "tool.coerced" ? "coerced" : "dropped";
          row.data[key] =
            e.event === "tool.repair" ? e.repairs : e.event === "tool.coerced" ? e.coerced : e.dropped;
          return;
        }
        case "tool.validation_error":
        case "tool.unknown": {
          if (typeof e.callId !== "string" || !e.tool) return;
          const row = toolRow(e.callId, e.tool);
          row.status = e.event === "tool.unknown" ? "unknown_tool" : "invalid_args";
          row.data.error = e.error;
          return;
        }
        case "tool.policy": {
          if (typeof e.callId !== "string" || !e.tool) return;
          const row = toolRow(e.callId, e.tool);
          row.data.policy = { decision: e.decision, ...(e.reason ? { reason: e.reason } : {}) };
          if (e.approved) (row.data.policy as Record<string, unknown>).approved = true;
          if (e.decision === "deny") row.status = "denied";
          else if (e.decision === "needs_approval") row.status = "pending";
          else row.status = "allowed";
          return;
        }
        case "tool.start": {
          if (typeof e.callId !== "string" || !e.tool) return;
          const row = toolRow(e.callId, e.tool);
          const at = now();
          row.status = "running";
          row.startedAt = new Date(at);
          row.startMs = at;
          if (activeTools++ === 0) activeSince = at;
          if (toolStartFlushedStep !== step) {
            toolStartFlushedStep = step;
            recorder.flush();
          }
          return;
        }
        case "tool.end": {
          if (typeof e.callId !== "string" || !e.tool) return;
          const row = toolRow(e.callId, e.tool);
          const at = now();
          row.status = e.ok ? "ok" : "error";
          row.durationMs = typeof e.durationMs === "number" ? e.durationMs : at - row.startMs;
          Object.assign(row.data, { attempts: e.attempts, chars: e.chars, capped: e.capped });
          if (e.error) row.data.error = e.error;
          if (activeTools > 0 && --activeTools === 0) totals.toolMs += at - activeSince;
          return;
        }
        case "note": {
          const row = addRow("note", null, null);
          row.data.note = e.note;
          return;
        }
        case "run.resume": {
          const row = addRow("note", e.recovered ? "continued" : "resumed", null);
          row.data.decisions = e.decisions;
          return;
        }
        case "run.end":
          return endRun(e);
        default:
          return;
      }
    },

    onToolEvent(e) {
      const row = toolRow(e.callId, e.tool);
      switch (e.action) {
        case "tool.requested":
          row.data.args = e.args;
          return;
        case "tool.executed":
          if (typeof e.resultSummary === "string")
            row.data.resultPreview = e.resultSummary.slice(0, RESULT_TEXT);
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
    },

    flush(f) {
      // The step as of this flush (a checkpoint's, else the latest event's), not as of its write: a
      // write that waits behind the one in flight goes out when the run may be a step further on.
      const asOf = f?.step ?? step;
      flushStep = Math.max(flushStep ?? asOf, asOf);
      writeChanges();
    },

    fail(reason, error) {
      stopReason = reason;
      stopReasonChanged = true;
      const row = addRow("note", "error", "error");
      row.data.error = error;
      recorder.flush();
    },

    async settled(maxMs = SETTLE_MS) {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, maxMs);
        timer.unref();
      });
      const idle = (async () => {
        while (inFlight) await inFlight;
      })();
      await Promise.race([idle, waited]);
      clearTimeout(timer);
    },
  };
  // A fault in recording never fails the run: the event is logged as not recorded and the run goes on.
  const guarded =
    <E>(handle: (e: E) => void) =>
    (e: E) => {
      try {
        handle(e);
      } catch (err) {
        o.logger.warn({ runId: o.runId, err: errorMessage(err) }, "run record event not recorded");
      }
    };
  return {
    ...recorder,
    onTraceEvent: guarded(recorder.onTraceEvent),
    onToolEvent: guarded(recorder.onToolEvent),
  };
}

/** No counts and no time to add (the time since the last write alone is not worth a write). */
function quiet(t: RunTotalsDraft): boolean {
  return (
    t.modelCalls === 0 && t.modelMs === 0 && t.toolMs === 0 && t.models.length === 0 && t.final === undefined
  );
}

/** Adds a write's totals that did not land back into the next one. */
function addTotals(into: RunTotalsDraft, back: RunTotalsDraft) {
  into.modelCalls += back.modelCalls;
  into.promptTokens += back.promptTokens;
  into.completionTokens += back.completionTokens;
  into.costUsd = into.costUsd === null || back.costUsd === null ? null : into.costUsd + back.costUsd;
  into.models = [...back.models, ...into.models.filter((m) => !back.models.includes(m))];
  into.modelMs += back.modelMs;
  into.toolMs += back.toolMs;
  into.ownMs += back.ownMs;
  into.final ??= back.final;
}
