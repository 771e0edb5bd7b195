import type * as OtelApi from "@opentelemetry/api";
import type { Logger } from "../core/logger.ts";
import {
  installTracing,
  type SpanAttributes,
  type SpanHandle,
  type SpanKind,
  type StartSpanOptions,
  type TracingPort,
} from "../core/tracing.ts";
import { type TelemetrySettings, telemetrySettings } from "./telemetry-settings.ts";

export interface RunningTelemetry {
  /** Sends the spans that ended and are still buffered. */
  flush(): Promise<void>;
  /** Sends what is buffered, then stops (the no-op tracer is installed again). */
  stop(): Promise<void>;
}

/** A span of this tracer: the port's handle over the OpenTelemetry span. */
interface OtelHandle extends SpanHandle {
  readonly otel: OtelApi.Span;
}

/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and installs it as the process's tracer. Without one nothing
 * is loaded: the SDK and the exporter are imported here, only then.
 */
export async function startTelemetry(o: {
  env: Record<string, string | undefined>;
  logger: Logger;
  /** Redacts message contents before they go into a span (only when contents are opted in). */
  redact: (text: string) => string;
}): Promise<RunningTelemetry | undefined> {
  const settings = telemetrySettings(o.env);
  if (!settings) return undefined;
  const [{ NodeSDK, tracing, core }, { OTLPTraceExporter }, api] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/api"),
  ]);
  const exporter = new OTLPTraceExporter({
    url: settings.tracesUrl,
    ...(settings.headers ? { headers: settings.headers } : {}),
  });
  const processor = new tracing.BatchSpanProcessor(exporter, {
    ...(settings.scheduleDelayMs !== undefined ? { scheduledDelayMillis: settings.scheduleDelayMs } : {}),
  });
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    spanProcessors: [processor],
    // Traces only: no log exporter (the SDK's default would add one), no metrics, no auto-instrumentation.
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const propagator = new core.W3CTraceContextPropagator();
  const port = otelPort(api, propagator, settings, o.redact);
  const before = installTracing(port);
  o.logger.info(
    { endpoint: settings.tracesUrl, serviceName: settings.serviceName, content: settings.captureContent },
    "OpenTelemetry tracing on",
  );
  return {
    flush: () => processor.forceFlush(),
    async stop() {
      installTracing(before);
      await sdk.shutdown().catch((err: unknown) => {
        o.logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          "OpenTelemetry shutdown failed",
        );
      });
      api.trace.disable();
      api.context.disable();
      api.propagation.disable();
    },
  };
}

const KINDS: Record<SpanKind, OtelApi.SpanKind> = {
  internal: 0,
  server: 1,
  client: 2,
  producer: 3,
  consumer: 4,
};

function otelPort(
  api: typeof OtelApi,
  propagator: OtelApi.TextMapPropagator,
  settings: TelemetrySettings,
  redact: (text: string) => string,
): TracingPort {
  const tracer = api.trace.getTracer("hermes");
  const handle = (span: OtelApi.Span): OtelHandle => ({
    otel: span,
    setAttributes: (a) => span.setAttributes(clean(a)),
    fail(message, type) {
      span.setStatus({ code: api.SpanStatusCode.ERROR, message });
      span.setAttribute("error.type", type ?? "error");
    },
    end: (endTime) => span.end(endTime),
    traceparent() {
      const carrier: Record<string, string> = {};
      propagator.inject(api.trace.setSpan(api.ROOT_CONTEXT, span), carrier, api.defaultTextMapSetter);
      return carrier.traceparent;
    },
  });
  const parentContext = (parent: StartSpanOptions["parent"]): OtelApi.Context => {
    if (parent === undefined) return api.context.active();
    if (typeof parent === "string")
      return propagator.extract(api.ROOT_CONTEXT, { traceparent: parent }, api.defaultTextMapGetter);
    const otel = (parent as Partial<OtelHandle>).otel;
    return otel ? api.trace.setSpan(api.context.active(), otel) : api.context.active();
  };
  return {
    enabled: true,
    content: settings.captureContent ? redact : undefined,
    startSpan(name, options = {}) {
      const span = tracer.startSpan(
        name,
        {
          kind: KINDS[options.kind ?? "internal"],
          ...(options.attributes ? { attributes: clean(options.attributes) } : {}),
          ...(options.startTime !== undefined ? { startTime: options.startTime } : {}),
        },
        parentContext(options.parent),
      );
      return handle(span);
    },
    withSpan(span, fn) {
      const otel = (span as Partial<OtelHandle>).otel;
      if (!otel) return fn();
      return api.context.with(api.trace.setSpan(api.context.active(), otel), fn);
    },
  };
}

/** The attributes with a value (OpenTelemetry drops undefined ones, but warns). */
function clean(a: SpanAttributes): OtelApi.Attributes {
  const out: OtelApi.Attributes = {};
  for (const [k, v] of Object.entries(a)) if (v !== undefined) out[k] = v;
  return out;
}
