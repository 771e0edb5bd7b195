/** What OpenTelemetry tracing runs with, from the standard `OTEL_*` variables. */
export interface TelemetrySettings {
  /** Where spans are sent (OTLP over HTTP, JSON). */
  tracesUrl: string;
  serviceName: string;
  headers?: Record<string, string>;
  /** Message contents go into spans (redacted). */
  captureContent: boolean;
  /** How long ended spans wait to be sent in a batch (`OTEL_BSP_SCHEDULE_DELAY`, ms). */
  scheduleDelayMs?: number;
}

/**
 * The settings, or undefined when tracing is off: no OTLP endpoint, or `OTEL_SDK_DISABLED=true`, or
 * `OTEL_TRACES_EXPORTER=none`. A malformed value is refused with a sentence naming the variable.
 */
export function telemetrySettings(env: Record<string, string | undefined>): TelemetrySettings | undefined {
  const get = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  if (get("OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  if (get("OTEL_TRACES_EXPORTER")?.toLowerCase() === "none") return undefined;
  const traces = get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const base = get("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (!traces && !base) return undefined;
  const tracesUrl = traces ?? `${base?.replace(/\/+$/, "")}/v1/traces`;
  if (!URL.canParse(tracesUrl))
    throw new Error(
      `${traces ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT"} must be a URL (e.g. http://collector:4318).`,
    );
  const headers = parseHeaders(get("OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? get("OTEL_EXPORTER_OTLP_HEADERS"));
  const delay = get("OTEL_BSP_SCHEDULE_DELAY");
  const scheduleDelayMs = delay === undefined ? undefined : Number(delay);
  if (scheduleDelayMs !== undefined && !(Number.isInteger(scheduleDelayMs) && scheduleDelayMs >= 0))
    throw new Error("OTEL_BSP_SCHEDULE_DELAY must be a whole number of milliseconds.");
  return {
    tracesUrl,
    serviceName: get("OTEL_SERVICE_NAME") ?? "hermes",
    ...(headers ? { headers } : {}),
    captureContent: get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")?.toLowerCase() === "true",
    ...(scheduleDelayMs !== undefined ? { scheduleDelayMs } : {}),
  };
}

/** `key1=value1,key2=value2` (values URL-encoded), as the OTLP exporter variables write headers. */
function parseHeaders(raw: string | undefined): Record<string, string> | undefined {
  if (!raw) return undefined;
  const out: Record<string, string> = {};
  for (const pair of raw.split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error("OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas.");
    out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}
