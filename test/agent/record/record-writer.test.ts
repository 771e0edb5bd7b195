import { describe, expect, it } from "vitest";
import type { RunRecordWrite, RunStepDraft } from "../../../src/agent/record/record-port.ts";
import type { RunRecordChange, RunTotalsDelta } from "../../../src/agent/record/record-reducer.ts";
import { createRunRecordWriter, type Delay } from "../../../src/agent/record/record-writer.ts";
import { silentLogger } from "../../../src/core/logger.ts";

/**
 * The batch writer with a hand-driven port, clock and settle timer: each write resolves or fails when
 * the test says, so coalescing, put-back and the settle bound are checked without real time.
 */
function harness(o: { requestText?: string } = {}) {
  let clock = 1000;
  const sent: RunRecordWrite[] = [];
  const pending: Array<{ resolve(): void; reject(e: Error): void }> = [];
  const timers: Array<() => void> = [];
  const delay: Delay = () => {
    let fire = () => {};
    const done = new Promise<void>((resolve) => {
      fire = resolve;
    });
    timers.push(() => fire());
    return { done, cancel: () => {} };
  };
  const writer = createRunRecordWriter({
    port: {
      reopen: () => Promise.reject(new Error("not used")),
      write: (w) => {
        sent.push(w);
        return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
      },
    },
    runId: "r",
    logger: silentLogger(),
    now: () => clock,
    delay,
    ...o,
  });
  return {
    writer,
    sent,
    tick: (ms: number) => {
      clock += ms;
    },
    // A write's outcome reaches the writer through promise callbacks: one turn of the event loop runs them.
    land: async () => {
      pending.shift()!.resolve();
      await new Promise((r) => setImmediate(r));
    },
    fail: async () => {
      pending.shift()!.reject(new Error("down"));
      await new Promise((r) => setImmediate(r));
    },
    fireTimers: () => {
      for (const t of timers.splice(0)) t();
    },
  };
}

const row = (seq: number, status: string | null = null): RunStepDraft => ({
  seq,
  step: 1,
  kind: "tool",
  name: "t",
  status,
  startedAt: new Date(0),
  durationMs: 0,
  promptTokens: null,
  completionTokens: null,
  costUsd: null,
  data: {},
});

const totals = (over: Partial<RunTotalsDelta> = {}): RunRecordChange => ({
  kind: "totals",
  totals: {
    modelCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    models: [],
    modelMs: 0,
    toolMs: 0,
    ...over,
  },
});

const flush = (step: number): RunRecordChange => ({ kind: "flush", step });

describe("run record writer", () => {
  it("changes wait in memory; a flush sends them in one write, a row changed twice once as it is now", () => {
    const h = harness({ requestText: "hello" });
    h.writer.apply([{ kind: "row", row: row(1) }, totals({ modelCalls: 1, modelMs: 30, models: ["m"] })]);
    h.writer.apply([
      { kind: "row", row: row(2) },
      { kind: "row", row: row(1, "ok") },
    ]);
    expect(h.sent).toEqual([]);
    h.tick(100);
    h.writer.apply([flush(2)]);
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]).toEqual({
      runId: "r",
      steps: [row(1, "ok"), row(2)],
      totals: {
        step: 2,
        modelCalls: 1,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        models: ["m"],
        modelMs: 30,
        toolMs: 0,
        ownMs: 70,
      },
      requestText: "hello",
    });
  });

  it("a flush with nothing new sends nothing; its step goes with the next write", async () => {
    const h = harness();
    h.writer.apply([flush(5)]);
    expect(h.sent).toEqual([]);
    h.writer.apply([{ kind: "row", row: row(1) }, flush(3)]);
    expect(h.sent[0]!.totals.step).toBe(5);
    await h.land();
  });

  it("one write in flight: flushes meanwhile coalesce into one next write, at the highest step asked", async () => {
    const h = harness();
    h.writer.apply([{ kind: "row", row: row(1) }, flush(1)]);
    h.writer.apply([{ kind: "row", row: row(2) }, flush(3)]);
    h.writer.apply([{ kind: "row", row: row(3) }, flush(2)]);
    expect(h.sent).toHaveLength(1);
    await h.land();
    expect(h.sent).toHaveLength(2);
    expect(h.sent[1]!.steps.map((s) => s.seq)).toEqual([2, 3]);
    expect(h.sent[1]!.totals.step).toBe(3);
    await h.land();
    expect(h.sent).toHaveLength(2);
  });

  it("a failed write's rows and totals go with the next one; a row changed since keeps its newer version", async () => {
    const h = harness({ requestText: "req" });
    h.writer.apply([
      { kind: "row", row: row(1) },
      { kind: "row", row: row(2) },
      totals({ modelCalls: 1, models: ["a"] }),
      flush(1),
    ]);
    h.writer.apply([{ kind: "row", row: row(2, "ok") }, totals({ modelCalls: 1, models: ["b"] })]);
    await h.fail();
    h.writer.apply([flush(2)]);
    const retry = h.sent[1]!;
    expect(retry.steps).toEqual([row(2, "ok"), row(1)]);
    expect(retry.totals).toMatchObject({ modelCalls: 2, models: ["a", "b"], step: 2 });
    expect(retry.requestText).toBe("req");
    await h.land();
  });

  it("a write that did not land: the next one counts the own time of both intervals, as one write would", async () => {
    const h = harness();
    h.writer.apply([{ kind: "row", row: row(1) }, totals({ modelMs: 30 })]);
    h.tick(100);
    h.writer.apply([flush(1)]);
    expect(h.sent[0]!.totals.ownMs).toBe(70);
    await h.fail();
    h.tick(50);
    h.writer.apply([totals({ modelMs: 10, toolMs: 5 }), flush(1)]);
    expect(h.sent[1]!.totals).toMatchObject({ modelMs: 40, toolMs: 5, ownMs: 150 - 45 });
    await h.land();
    // The same for a batch carried by a checkpoint whose statement failed.
    h.tick(20);
    h.writer.apply([{ kind: "row", row: row(2) }]);
    h.writer.carry(2)!.notLanded(new Error("down"));
    await new Promise((r) => setImmediate(r));
    h.tick(30);
    h.writer.apply([flush(2)]);
    expect(h.sent[2]!.totals.ownMs).toBe(50);
    await h.land();
  });

  it("once a cost is unknown every later write says so; the stop reason goes with every write once set", async () => {
    const h = harness();
    h.writer.apply([totals({ modelCalls: 1, costUsd: null }), { kind: "stop", reason: "done" }, flush(1)]);
    await h.land();
    h.writer.apply([totals({ modelCalls: 1, costUsd: 0.5 }), flush(2)]);
    await h.land();
    expect(h.sent.map((w) => [w.totals.costUsd, w.stopReason])).toEqual([
      [null, "done"],
      [null, "done"],
    ]);
  });

  it("carry: a flush's batch taken for another statement; flushes meanwhile wait behind it, then go as one", async () => {
    const h = harness({ requestText: "req" });
    h.writer.apply([{ kind: "row", row: row(1) }, totals({ modelCalls: 1, models: ["m"] })]);
    h.tick(50);
    const carried = h.writer.carry(2)!;
    expect(carried.batch).toMatchObject({
      runId: "r",
      steps: [row(1)],
      totals: { step: 2, modelCalls: 1, models: ["m"], ownMs: 50 },
      requestText: "req",
    });
    // While the carried batch's statement is out, it is the write in flight.
    h.writer.apply([{ kind: "row", row: row(2) }, flush(2)]);
    expect(h.writer.carry(3)).toBeUndefined();
    expect(h.sent).toEqual([]);
    let settled = false;
    const waiting = h.writer.settled().then(() => {
      settled = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    carried.landed();
    await new Promise((r) => setImmediate(r));
    expect(h.sent.map((w) => [w.steps.map((x) => x.seq), w.totals.step, w.requestText])).toEqual([
      [[2], 2, undefined],
    ]);
    await h.land();
    await waiting;
    // Nothing new: nothing to carry (its step goes with the next write).
    expect(h.writer.carry(4)).toBeUndefined();
    h.writer.apply([{ kind: "row", row: row(3) }, flush(1)]);
    expect(h.sent[1]!.totals.step).toBe(4);
    await h.land();
  });

  it("carry: a batch whose statement wrote nothing goes with the next write, as a failed write's", async () => {
    const h = harness({ requestText: "req" });
    h.writer.apply([{ kind: "row", row: row(1) }, totals({ modelCalls: 1, models: ["a"] })]);
    const carried = h.writer.carry(1)!;
    h.writer.apply([{ kind: "row", row: row(1, "ok") }, totals({ modelCalls: 1, models: ["b"] })]);
    carried.notLanded(new Error("down"));
    carried.landed(); // answered once: ignored
    await new Promise((r) => setImmediate(r));
    expect(h.sent).toEqual([]);
    h.writer.apply([flush(1)]);
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]!.steps).toEqual([row(1, "ok")]);
    expect(h.sent[0]!.totals).toMatchObject({ modelCalls: 2, models: ["a", "b"], step: 1 });
    expect(h.sent[0]!.requestText).toBe("req");
    await h.land();
  });

  it("settled resolves once the write in flight has landed", async () => {
    const h = harness();
    h.writer.apply([{ kind: "row", row: row(1) }, flush(1)]);
    let done = false;
    const waiting = h.writer.settled().then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    await h.land();
    await waiting;
    expect(done).toBe(true);
  });

  it("settled waits for the write in flight, or gives up when its bound fires", async () => {
    const h = harness();
    h.writer.apply([{ kind: "row", row: row(1) }, flush(1)]);
    let done = false;
    const waiting = h.writer.settled(10).then(() => {
      done = true;
    });
    await Promise.resolve();
    expect(done).toBe(false);
    h.fireTimers();
    await waiting;
    expect(done).toBe(true);
  });
});
