/**
 * The tracing port: spans the runtime opens around what it does (a Slack event, a run, a model call,
 * a tool call, an approval's wait, a Slack Web API call). The default does nothing and costs nothing;
 * `telemetry/` installs an OpenTelemetry implementation at start-up when an OTLP endpoint is set.
 * Like OpenTelemetry's own API, the installed tracer is process-wide: every room reads it here.
 */

export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue | undefined>;

export type SpanKind = "internal" | "server" | "client" | "producer" | "consumer";

export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void;
  /** Marks the span failed, with a short sentence (never a stack or a secret). */
  fail(message: string, type?: string): void;
  end(endTime?: number): void;
  /** The W3C `traceparent` of this span (to carry it across a queue); undefined when not recording. */
  traceparent(): string | undefined;
}

export interface StartSpanOptions {
  kind?: SpanKind;
  attributes?: SpanAttributes;
  /** The parent: a span, or a W3C `traceparent` carried from another process. Default: the active span. */
  parent?: SpanHandle | string | undefined;
  /** Epoch milliseconds the span began (a wait that began earlier); default now. */
  startTime?: number;
}

export interface TracingPort {
  /** False for the no-op tracer: callers may skip building attributes. */
  readonly enabled: boolean;
  /**
   * Message contents for spans, redacted; undefined unless contents were opted in
   * (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`).
   */
  readonly content?: ((text: string) => string) | undefined;
  startSpan(name: string, options?: StartSpanOptions): SpanHandle;
  /** Runs `fn` with `span` as the active span (spans started inside it are its children). */
  withSpan<T>(span: SpanHandle, fn: () => T): T;
}

const noopSpan: SpanHandle = {
  setAttributes: () => undefined,
  fail: () => undefined,
  end: () => undefined,
  traceparent: () => undefined,
};

export const noopTracing: TracingPort = {
  enabled: false,
  startSpan: () => noopSpan,
  withSpan: (_span, fn) => fn(),
};

let installed: TracingPort = noopTracing;

/** The process's tracer (the no-op one until telemetry is started). */
export function tracing(): TracingPort {
  return installed;
}

/** Installs the process's tracer; returns the one it replaced. */
export function installTracing(port: TracingPort): TracingPort {
  const before = installed;
  installed = port;
  return before;
}

/**
 * Runs `fn` inside a span that ends when it settles (failed with the error's message when it throws).
 */
export async function inSpan<T>(
  name: string,
  options: StartSpanOptions,
  fn: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  const t = installed;
  if (!t.enabled) return fn(noopSpan);
  const span = t.startSpan(name, options);
  try {
    return await t.withSpan(span, () => fn(span));
  } catch (err) {
    span.fail(err instanceof Error ? err.message : String(err), err instanceof Error ? err.name : undefined);
    throw err;
  } finally {
    span.end();
  }
}
