import { describe, expect, it } from "vitest";
import { chunkedGet } from "../../../src/agent/record/chunked-map.ts";
import type { RunStepDraft } from "../../../src/agent/record/record-port.ts";
import {
  initialRunRecordState,
  type RunRecordChange,
  type RunRecordEvent,
  type RunRecordState,
  reduceRunRecord,
} from "../../../src/agent/record/record-reducer.ts";
import type { ToolEvent } from "../../../src/agent/run/policy-hook.ts";
import type { TraceEvent } from "../../../src/agent/run/trace.ts";

/**
 * The record as a pure function of the events: each event's time is on it, so these tests hold no
 * clock. `feed` runs events through the reducer and keeps every change it asked for.
 */
function feed(
  events: RunRecordEvent[],
  state = initialRunRecordState({ prices: { m: { input: 1, output: 2 } } }),
) {
  const writes: RunRecordChange[] = [];
  for (const e of events) {
    const next = reduceRunRecord(state, e);
    state = next.state;
    writes.push(...next.writes);
  }
  return { state, writes };
}

const trace = (
  at: number,
  event: TraceEvent["event"],
  step: number,
  data: Record<string, unknown> = {},
): RunRecordEvent => ({
  type: "trace",
  at,
  event: { event, runId: "r", sessionKey: "s", step, ...data },
});

const tool = (
  at: number,
  action: ToolEvent["action"],
  callId: string,
  data: Partial<ToolEvent> = {},
): RunRecordEvent => ({
  type: "tool",
  at,
  event: {
    action,
    run: { runId: "r", sessionKey: "s", userId: "U" },
    callId,
    tool: "lookup",
    args: {},
    argsSha256: "h",
    ...data,
  },
});

const rows = (writes: RunRecordChange[]): RunStepDraft[] =>
  writes.flatMap((w) => (w.kind === "row" ? [w.row] : []));
const kinds = (writes: RunRecordChange[]) => writes.map((w) => w.kind);

describe("run record reducer", () => {
  it("a model call: one row from request to response, with its time, tokens, cost and totals", () => {
    const { writes } = feed([
      trace(1000, "model.request", 1, { model: "m" }),
      trace(1000, "model.retry", 1),
      trace(1200, "model.response", 1, {
        model: "m",
        answeredBy: "m-2025",
        usage: { promptTokens: 1000, completionTokens: 100 },
        finishReason: "stop",
      }),
    ]);
    expect(kinds(writes)).toEqual(["row", "totals"]);
    const [row] = rows(writes);
    expect(row).toMatchObject({
      seq: 1,
      step: 1,
      kind: "model",
      name: "m-2025",
      status: "ok",
      durationMs: 200,
      promptTokens: 1000,
      completionTokens: 100,
      data: { retries: 1, configuredModel: "m", finishReason: "stop" },
    });
    expect(row!.startedAt.getTime()).toBe(1000);
    expect(row!.costUsd).toBeCloseTo(1200 / 1e6, 12);
    expect(writes[1]).toEqual({
      kind: "totals",
      totals: {
        modelCalls: 1,
        promptTokens: 1000,
        completionTokens: 100,
        costUsd: row!.costUsd,
        models: ["m-2025"],
        modelMs: 200,
        toolMs: 0,
      },
    });
  });

  it("a model's name goes into the totals once per run; an unpriced one makes the cost null", () => {
    const { writes } = feed([
      trace(0, "model.request", 1, { model: "x" }),
      trace(5, "model.response", 1, { model: "x", usage: { promptTokens: 1, completionTokens: 1 } }),
      trace(5, "model.request", 2, { model: "x" }),
      trace(9, "model.response", 2, { model: "x", usage: { promptTokens: 1, completionTokens: 1 } }),
    ]);
    const totals = writes.flatMap((w) => (w.kind === "totals" ? [w.totals] : []));
    expect(totals.map((t) => [t.models, t.costUsd, t.modelMs])).toEqual([
      [["x"], null, 5],
      [[], null, 4],
    ]);
  });

  it("leaves the state it was given as it was, and rows already written untouched", () => {
    const first = feed([tool(0, "tool.requested", "c1", { args: { q: 1 } })]);
    const before = structuredClone(chunkedGet(first.state.toolRows, "c1"));
    const written = rows(first.writes)[0]!;
    const next = reduceRunRecord(first.state, trace(10, "tool.start", 1, { tool: "lookup", callId: "c1" }));
    expect(chunkedGet(first.state.toolRows, "c1")).toEqual(before);
    expect(written.status).toBeNull();
    expect(chunkedGet(next.state.toolRows, "c1")!.status).toBe("running");
    expect(first.state.step).toBe(0);
  });

  it("a tool call: one row by call id through policy, start, end and result; the step's first start asks for a write", () => {
    const { writes, state } = feed([
      tool(0, "tool.requested", "c1", { args: { q: 1 } }),
      trace(0, "tool.policy", 1, { tool: "lookup", callId: "c1", decision: "allow" }),
      trace(10, "tool.start", 1, { tool: "lookup", callId: "c1" }),
      trace(12, "tool.start", 1, { tool: "lookup", callId: "c2" }),
      trace(40, "tool.end", 1, { tool: "lookup", callId: "c1", ok: true }),
      trace(50, "tool.end", 1, { tool: "lookup", callId: "c2", ok: false, durationMs: 7, error: "boom" }),
      tool(50, "tool.executed", "c1", { resultSummary: "x".repeat(3000) }),
    ]);
    expect(writes.filter((w) => w.kind === "flush")).toEqual([{ kind: "flush", step: 1 }]);
    const c1 = chunkedGet(state.toolRows, "c1")!;
    expect(c1).toMatchObject({
      seq: 1,
      status: "ok",
      durationMs: 30,
      data: { callId: "c1", args: { q: 1 } },
    });
    expect(c1.startedAt.getTime()).toBe(10);
    expect(c1.data.policy).toEqual({ decision: "allow" });
    expect(String(c1.data.resultPreview).length).toBe(2000);
    expect(chunkedGet(state.toolRows, "c2")).toMatchObject({
      seq: 2,
      status: "error",
      durationMs: 7,
      data: { error: "boom" },
    });
    // Tool time is the union of the calls' intervals: 10 → 50.
    const toolMs = writes.flatMap((w) => (w.kind === "totals" ? [w.totals.toolMs] : []));
    expect(toolMs).toEqual([40]);
    // The write asked for carries the row it was asked for with: the flush comes last.
    const startWrites = reduceRunRecord(
      initialRunRecordState({ prices: {} }),
      trace(0, "tool.start", 3, { tool: "t", callId: "c" }),
    ).writes;
    expect(kinds(startWrites)).toEqual(["row", "flush"]);
  });

  it("a decided approval shows on its call's row; a paused run adds an approval row per pending call", () => {
    const { writes } = feed(
      [
        trace(0, "tool.policy", 2, {
          tool: "send",
          callId: "c9",
          decision: "needs_approval",
          reason: "posts",
        }),
        trace(0, "tool.policy", 2, { tool: "send", callId: "c8", decision: "allow", approved: true }),
        trace(5, "run.end", 2, { status: "paused" }),
      ],
      initialRunRecordState({
        prices: {},
        nextSeq: 7,
        approvals: { c8: { approvalId: "a1", status: "approved", decidedBy: "U0" } },
      }),
    );
    expect(rows(writes).map((r) => [r.seq, r.kind, r.name, r.status, r.data])).toEqual([
      [
        7,
        "tool",
        "send",
        "pending",
        { callId: "c9", policy: { decision: "needs_approval", reason: "posts" } },
      ],
      [
        8,
        "tool",
        "send",
        "allowed",
        {
          callId: "c8",
          approval: { approvalId: "a1", status: "approved", decidedBy: "U0" },
          policy: { decision: "allow", approved: true },
        },
      ],
      [9, "approval", "send", "pending", { callId: "c9", reason: "posts" }],
    ]);
    expect(writes.at(-1)).toEqual({ kind: "flush", step: 2 });
  });

  it("the run's end: its stop reason, cumulative counts, and a write", () => {
    const { writes } = feed([
      trace(0, "run.end", 3, {
        status: "completed",
        stopReason: "done",
        modelCalls: 4,
        usage: { promptTokens: 10, completionTokens: 2 },
      }),
    ]);
    expect(writes).toEqual([
      {
        kind: "totals",
        totals: expect.objectContaining({ final: { modelCalls: 4, promptTokens: 10, completionTokens: 2 } }),
      },
      { kind: "stop", reason: "done" },
      { kind: "flush", step: 3 },
    ]);
  });

  it("events about the last model call change its row again (same seq)", () => {
    const { writes } = feed([
      trace(0, "model.request", 1, { model: "m" }),
      trace(3, "model.response", 1, { model: "m", finishReason: "length" }),
      trace(3, "model.reasoning", 1, { chars: 12 }),
      trace(3, "model.unrecovered", 1, { marker: "<tool" }),
    ]);
    const seen = rows(writes);
    expect(seen.map((r) => [r.seq, r.status])).toEqual([
      [1, "truncated"],
      [1, "truncated"],
      [1, "unreadable"],
    ]);
    expect(seen[2]!.data).toMatchObject({ reasoningChars: 12, unrecovered: "<tool" });
    expect(seen[0]!.data.reasoningChars).toBeUndefined();
  });

  it("a flush asks for a write as of the given step, else the latest event's; fail adds a note and a write", () => {
    const s: RunRecordState = feed([trace(0, "note", 4, { note: "hi" })]).state;
    expect(reduceRunRecord(s, { type: "flush" }).writes).toEqual([{ kind: "flush", step: 4 }]);
    expect(reduceRunRecord(s, { type: "flush", step: 2 }).writes).toEqual([{ kind: "flush", step: 2 }]);
    const failed = reduceRunRecord(s, { type: "fail", reason: "crashed", error: "E", at: 9 }).writes;
    expect(failed).toEqual([
      {
        kind: "row",
        row: expect.objectContaining({
          seq: 2,
          step: 4,
          kind: "note",
          name: "error",
          status: "error",
          data: { error: "E" },
        }),
      },
      { kind: "stop", reason: "crashed" },
      { kind: "flush", step: 4 },
    ]);
  });

  it("context, sanitizing, fallback and resume notes are rows of their own", () => {
    const { writes } = feed([
      trace(0, "context.trimmed", 1, { tokens: 9, summarized: true, summaryError: "x" }),
      trace(0, "history.sanitized", 1, { before: 3, after: 2 }),
      trace(0, "model.fallback", 1, { from: "a", model: "b", reason: "r" }),
      trace(0, "run.resume", 1, { recovered: true, decisions: 1 }),
      trace(0, "tool.unknown", 1, { tool: "nope", callId: "c", error: "unknown" }),
      trace(0, "tool.repair", 1, { callId: "no-tool" }),
    ]);
    expect(rows(writes).map((r) => [r.kind, r.name, r.status])).toEqual([
      ["context", "summarized", "error"],
      ["context", "sanitized", "ok"],
      ["note", "fallback", null],
      ["note", "continued", null],
      ["tool", "nope", "unknown_tool"],
    ]);
  });
});
