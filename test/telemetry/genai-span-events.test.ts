import { describe, expect, it } from "vitest";
import { genAiSpans } from "../../src/agent/run/genai-spans.ts";
import type { SpanAttributes, StartSpanOptions, TracingPort } from "../../src/core/tracing.ts";
import { noopTracing } from "../../src/core/tracing.ts";

interface Recorded {
  name: string;
  options: StartSpanOptions;
  attributes: SpanAttributes;
  failed?: { message: string; type?: string | undefined };
  ended: boolean;
}

function recordingTracer(content?: (text: string) => string): { port: TracingPort; spans: Recorded[] } {
  const spans: Recorded[] = [];
  return {
    spans,
    port: {
      enabled: true,
      content,
      startSpan(name, options = {}) {
        const rec: Recorded = { name, options, attributes: { ...options.attributes }, ended: false };
        spans.push(rec);
        return {
          setAttributes: (a) => Object.assign(rec.attributes, a),
          fail: (message, type) => {
            rec.failed = { message, type };
          },
          end: () => {
            rec.ended = true;
          },
          traceparent: () => undefined,
        };
      },
      withSpan: (_s, fn) => fn(),
    },
  };
}

const ids = { runId: "run-1", sessionKey: "T1:C1:1.0" };

describe("GenAI spans from a run's trace events", () => {
  it("are not made while tracing is off", () => {
    expect(genAiSpans(noopTracing)).toBeUndefined();
  });

  it("a streamed model call: time to first chunk, cached and reasoning tokens, finish reason", () => {
    const { port, spans } = recordingTracer();
    const g = genAiSpans(port)!;
    g.onEvent({ ...ids, step: 1, event: "model.request", model: "gpt-x" });
    g.onEvent({ ...ids, step: 1, event: "model.text", delta: "Hel" });
    g.onEvent({ ...ids, step: 1, event: "model.text", delta: "lo" });
    g.onEvent({
      ...ids,
      step: 1,
      event: "model.response",
      answeredBy: "gpt-x-2026",
      finishReason: "stop",
      usage: { promptTokens: 50, completionTokens: 7 },
      usageDetails: { cachedInputTokens: 32, reasoningTokens: 3 },
      streamed: true,
      toolCalls: [],
    });
    expect(spans).toHaveLength(1);
    const chat = spans[0]!;
    expect(chat).toMatchObject({ name: "chat gpt-x", options: { kind: "client" }, ended: true });
    expect(chat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-x",
      "gen_ai.response.model": "gpt-x-2026",
      "gen_ai.response.finish_reasons": ["stop"],
      "gen_ai.usage.input_tokens": 50,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.usage.cache_read.input_tokens": 32,
      "gen_ai.usage.reasoning.output_tokens": 3,
      "hermes.model.streamed": true,
    });
    expect(chat.attributes["gen_ai.response.time_to_first_chunk"]).toEqual(expect.any(Number));
    expect(chat.attributes["gen_ai.input.messages"]).toBeUndefined();
  });

  it("a failed model call and a failed tool call end failed; a run's end closes what is open", () => {
    const { port, spans } = recordingTracer();
    const g = genAiSpans(port)!;
    g.onEvent({ ...ids, step: 1, event: "model.request", model: "m" });
    g.onEvent({ ...ids, step: 1, event: "model.error", error: "The model server did not answer." });
    g.onEvent({ ...ids, step: 2, event: "tool.start", tool: "lookup", callId: "c1" });
    g.onEvent({ ...ids, step: 2, event: "tool.start", tool: "lookup", callId: "c2" });
    g.onEvent({
      ...ids,
      step: 2,
      event: "tool.end",
      tool: "lookup",
      callId: "c1",
      ok: false,
      error: "not found",
    });
    g.onEvent({ ...ids, step: 2, event: "run.end", status: "stopped" });
    expect(spans.map((s) => [s.name, s.failed?.type, s.ended])).toEqual([
      ["chat m", "model_error", true],
      ["execute_tool lookup", "tool_error", true],
      ["execute_tool lookup", undefined, true],
    ]);
    expect(spans[1]!.attributes).toMatchObject({
      "gen_ai.tool.call.id": "c1",
      "hermes.tool.outcome": "error",
    });
  });

  it("contents only through the port's redactor, when it has one", () => {
    const { port, spans } = recordingTracer((text) => text.replaceAll("secret", "[redacted]"));
    const g = genAiSpans(port)!;
    g.onEvent({ ...ids, step: 1, event: "model.request", model: "m" });
    g.chatContent([{ role: "user", content: "my secret plan" }], "the secret answer");
    expect(String(spans[0]!.attributes["gen_ai.input.messages"])).toBe(
      '[{"role":"user","parts":[{"type":"text","content":"my [redacted] plan"}]}]',
    );
    expect(String(spans[0]!.attributes["gen_ai.output.messages"])).toContain("the [redacted] answer");
  });
});
