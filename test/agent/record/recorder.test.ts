import { describe, expect, it } from "vitest";
import type { RunRecordWrite } from "../../../src/agent/record/record-port.ts";
import { createRunRecorder } from "../../../src/agent/record/recorder.ts";
import type { TraceEvent } from "../../../src/agent/run/trace.ts";
import { silentLogger } from "../../../src/core/logger.ts";

/**
 * The recorder as the workers use it: events in, writes to the port at step boundaries, with the
 * clock given. Rows and totals in detail are the reducer's and the writer's tests.
 */
describe("run recorder", () => {
  function recorder() {
    let clock = 0;
    const sent: RunRecordWrite[] = [];
    const rec = createRunRecorder({
      port: {
        reopen: () => Promise.reject(new Error("not used")),
        write: async (w) => {
          sent.push(w);
        },
      },
      runId: "r",
      prices: {},
      logger: silentLogger(),
      requestText: "hi",
      now: () => clock,
    });
    const ev = (event: TraceEvent["event"], step: number, data: Record<string, unknown> = {}) =>
      rec.onTraceEvent({ event, runId: "r", sessionKey: "s", step, ...data });
    return { rec, ev, sent, tick: (ms: number) => (clock += ms) };
  }

  it("writes at the step's first tool start and at the end, with the time each event came at", async () => {
    const { rec, ev, sent, tick } = recorder();
    ev("model.request", 1, { model: "m" });
    tick(20);
    ev("model.response", 1, { model: "m" });
    ev("tool.start", 1, { tool: "t", callId: "c1" });
    ev("tool.start", 1, { tool: "t", callId: "c2" });
    await rec.settled();
    // Only the step's first tool start asks for a write: the second call's row waits for the next one.
    expect(sent.map((w) => w.steps.map((s) => [s.seq, s.kind, s.status]))).toEqual([
      [
        [1, "model", "ok"],
        [2, "tool", "running"],
      ],
    ]);
    tick(5);
    ev("tool.end", 1, { tool: "t", callId: "c1", ok: true });
    ev("tool.end", 1, { tool: "t", callId: "c2", ok: true });
    rec.flush({ step: 1 });
    ev("run.end", 2, { status: "completed", stopReason: "done" });
    await rec.settled();
    expect(sent[0]).toMatchObject({ requestText: "hi", totals: { modelMs: 20, step: 1 } });
    expect(sent.at(-1)).toMatchObject({ stopReason: "done", totals: { step: 2 } });
    expect(sent.flatMap((w) => w.steps).findLast((s) => s.seq === 2)).toMatchObject({
      status: "ok",
      durationMs: 5,
    });
    expect(sent.reduce((ms, w) => ms + w.totals.toolMs, 0)).toBe(5);
  });

  it("an event that cannot be recorded is logged and skipped; the record goes on", async () => {
    const { rec, ev, sent } = recorder();
    const broken: TraceEvent = { event: "model.response", runId: "r", sessionKey: "s", step: 1 };
    Object.defineProperty(broken, "usage", {
      get() {
        throw new Error("unreadable");
      },
    });
    expect(() => rec.onTraceEvent(broken)).not.toThrow();
    ev("note", 1, { note: "after" });
    rec.fail("crashed", "E");
    await rec.settled();
    expect(sent.flatMap((w) => w.steps).map((s) => [s.seq, s.kind, s.name])).toEqual([
      [1, "note", null],
      [2, "note", "error"],
    ]);
    expect(sent.at(-1)!.stopReason).toBe("crashed");
  });
});
