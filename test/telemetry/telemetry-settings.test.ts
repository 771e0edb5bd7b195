import { describe, expect, it } from "vitest";
import { telemetrySettings } from "../../src/telemetry/telemetry-settings.ts";

describe("OpenTelemetry settings from OTEL_* variables", () => {
  it("is off without an OTLP endpoint, or when the SDK or the traces exporter is turned off", () => {
    expect(telemetrySettings({})).toBeUndefined();
    expect(
      telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }),
    ).toBeUndefined();
    expect(
      telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" }),
    ).toBeUndefined();
  });

  it("sends to {endpoint}/v1/traces as `hermes`, contents off, unless told otherwise", () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toEqual({
      tracesUrl: "http://c:4318/v1/traces",
      serviceName: "hermes",
      captureContent: false,
    });
    expect(
      telemetrySettings({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://t:4318/custom",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=a%20b,tenant=acme",
        OTEL_SERVICE_NAME: "hermes-eu",
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "TRUE",
      }),
    ).toEqual({
      tracesUrl: "http://t:4318/custom",
      serviceName: "hermes-eu",
      headers: { "x-api-key": "a b", tenant: "acme" },
      captureContent: true,
    });
  });

  it("refuses a malformed value with a sentence naming the variable", () => {
    expect(() => telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "not a url" })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be a URL/,
    );
    expect(() =>
      telemetrySettings({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_BSP_SCHEDULE_DELAY: "soon" }),
    ).toThrow(/OTEL_BSP_SCHEDULE_DELAY/);
  });
});
