import { afterEach, describe, expect, it } from "vitest";
import {
  installTracing,
  noopTracing,
  type SpanAttributes,
  type StartSpanOptions,
  type TracingPort,
} from "../../src/core/tracing.ts";
import type { Approval } from "../../src/policy/approval-record.ts";
import { traceApprovalWait } from "../../src/policy/approval-wait-span.ts";

interface Recorded {
  name: string;
  options: StartSpanOptions;
  attributes: SpanAttributes;
  endTime?: number | undefined;
}

/** A tracer that keeps what it was asked to record. */
function recordingTracer(): { port: TracingPort; spans: Recorded[] } {
  const spans: Recorded[] = [];
  const port: TracingPort = {
    enabled: true,
    startSpan(name, options = {}) {
      const rec: Recorded = { name, options, attributes: { ...options.attributes } };
      spans.push(rec);
      return {
        setAttributes: (a) => Object.assign(rec.attributes, a),
        fail: () => undefined,
        end: (t) => {
          rec.endTime = t;
        },
        traceparent: () => undefined,
      };
    },
    withSpan: (_s, fn) => fn(),
  };
  return { port, spans };
}

describe("an approval's wait as a span", () => {
  afterEach(() => {
    installTracing(noopTracing);
  });

  it("runs from the pause (the approval's creation) to its decision, with the call it held", () => {
    const { port, spans } = recordingTracer();
    installTracing(port);
    const approval = {
      id: "apr_1",
      tool: "delete_ticket",
      toolCallId: "call_9",
      sessionKey: "T1:C1:1.0",
      runId: "run-1",
      approvers: "requester_or_admin",
      createdAt: new Date("2026-01-01T10:00:00Z"),
      decidedAt: new Date("2026-01-01T10:05:00Z"),
    } as unknown as Approval;
    traceApprovalWait(approval, "approved");
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      name: "approval_wait delete_ticket",
      options: { startTime: Date.parse("2026-01-01T10:00:00Z") },
      endTime: Date.parse("2026-01-01T10:05:00Z"),
      attributes: {
        "gen_ai.tool.name": "delete_ticket",
        "gen_ai.tool.call.id": "call_9",
        "gen_ai.conversation.id": "T1:C1:1.0",
        "hermes.run.id": "run-1",
        "hermes.approval.outcome": "approved",
      },
    });
  });

  it("records nothing while tracing is off", () => {
    expect(() =>
      traceApprovalWait({ id: "a", tool: "t", createdAt: new Date() } as unknown as Approval, "expired"),
    ).not.toThrow();
  });
});
