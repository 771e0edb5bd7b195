import { type LineWriter, type Logger, lineWriter } from "../../core/logger.ts";
import { tracing } from "../../core/tracing.ts";
import { type GenAiSpans, genAiSpans } from "./genai-spans.ts";

export type TraceEventType =
  | "run.start"
  | "run.resume"
  | "run.end"
  | "model.request"
  | "model.response"
  | "model.text"
  | "model.retry"
  | "model.error"
  | "model.truncated"
  | "model.reasoning"
  | "model.format"
  | "model.unrecovered"
  | "model.fallback"
  | "model.budget_exceeded"
  | "model.budget_unavailable"
  | "context.trimmed"
  | "history.sanitized"
  | "tool.repair"
  | "tool.coerced"
  | "tool.dropped_keys"
  | "tool.validation_error"
  | "tool.unknown"
  | "tool.policy"
  | "tool.start"
  | "tool.end"
  | "note";

export interface TraceEvent {
  event: TraceEventType;
  runId: string;
  sessionKey: string;
  step: number;
  tool?: string;
  [key: string]: unknown;
}

/**
 * Events that only announce what is about to happen (for live progress): their content is repeated
 * in the event that closes them (`model.response` carries the request's size, `tool.end` the call),
 * so the log gets one line per model call and per tool execution.
 */
const LIVE_ONLY = new Set<TraceEventType>(["model.request", "model.text", "tool.start"]);

/**
 * Whether an event is a log line. A policy "allow" is not: the call's `tool.end` (or its failure)
 * follows and says it ran; a denial or an approval to wait for is logged.
 */
function logged(event: TraceEventType, data: Record<string, unknown>): boolean {
  if (LIVE_ONLY.has(event)) return false;
  return !(event === "tool.policy" && data.decision === "allow");
}

/** One structured event per thing the runtime does; each is a pino JSON line with runId, sessionKey, step. */
export interface Tracer {
  step: number;
  emit(event: TraceEventType, data?: Record<string, unknown>): void;
  /** A child logger with runId and sessionKey bound (tools log through it). */
  readonly logger: Logger;
  /** The run's OpenTelemetry GenAI spans, fed by `emit`; undefined when tracing is off. */
  readonly spans?: GenAiSpans | undefined;
}

export function createTracer(options: {
  logger: Logger;
  runId: string;
  sessionKey: string;
  onEvent?: (e: TraceEvent) => void;
}): Tracer {
  const ids = { runId: options.runId, sessionKey: options.sessionKey };
  let child: Logger | undefined;
  // The run's lines in one JSON.stringify each (logger.ts); pino's own path for what it cannot write.
  let write: LineWriter | undefined | null = null;
  const spans = genAiSpans(tracing());
  const tracer: Tracer = {
    step: 0,
    spans,
    // A pino child costs a serialization of its bindings: made only when something logs through it.
    get logger() {
      child ??= options.logger.child(ids);
      return child;
    },
    emit(event, data = {}) {
      const level = event === "model.error" || event === "tool.validation_error" ? "warn" : "info";
      if (logged(event, data) && options.logger.isLevelEnabled(level)) {
        // runId and sessionKey are bound (and redacted) once per run, not on every line. Object.assign,
        // not a spread: V8 builds a mixed spread key by key.
        const line = Object.assign({ event, step: tracer.step }, data);
        if (write === null) write = lineWriter(options.logger, ids);
        if (!write?.(level, line, event)) tracer.logger[level](line, event);
      }
      if (options.onEvent || spans) {
        const e = Object.assign(
          { runId: ids.runId, sessionKey: ids.sessionKey, event, step: tracer.step },
          data,
        );
        spans?.onEvent(e);
        options.onEvent?.(e);
      }
    },
  };
  return tracer;
}
