import { describe, expect, it } from "vitest";
import type { RunRecordPort, RunRecordWrite } from "../../src/agent/record/record-port.ts";
import { createRunRecorder } from "../../src/agent/record/recorder.ts";
import type { RunSnapshot } from "../../src/agent/run/snapshot.ts";
import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { HermesError, isHermesError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { withRunRecorder } from "../../src/queue/open-recorder.ts";
import { runCheckpoint } from "../../src/queue/recover-run.ts";
import type { RunStore } from "../../src/store/run-store.ts";

const snapshot = (step: number) =>
  ({ run: { runId: "r", sessionKey: "s", userId: "U1" }, step }) as RunSnapshot;

/**
 * A worker's checkpoint with the run recorder, on hand-made stores that log every call: the record's
 * pending batch goes in the checkpoint's statement, and when that statement fails the checkpoint is
 * written alone (failing as it always did) and the batch goes with the record's next write.
 */
function harness(o: {
  combined?: (w: RunRecordWrite) => Promise<boolean>;
  checkpoint?: () => Promise<boolean>;
}) {
  const calls: string[] = [];
  const written: RunRecordWrite[] = [];
  const port: RunRecordPort = {
    reopen: () => Promise.reject(new Error("not used")),
    write: async (w) => {
      calls.push("write");
      written.push(w);
    },
    ...(o.combined
      ? {
          writeWithCheckpoint: async (w, c) => {
            calls.push(`checkpoint+write ${c.snapshot.step} ${c.eventId}`);
            written.push(w);
            return o.combined!(w);
          },
        }
      : {}),
  };
  const runs = {
    checkpoint: async (s: RunSnapshot, options?: { eventId?: string }) => {
      calls.push(`checkpoint ${s.step} ${options?.eventId}`);
      return (o.checkpoint ?? (async () => true))();
    },
  } as Pick<RunStore, "checkpoint"> as RunStore;
  const recorder = createRunRecorder({
    port,
    runId: "r",
    prices: {},
    logger: silentLogger(),
    requestText: "hi",
  });
  const deps = withRunRecorder({ checkpoint: runCheckpoint({ runs, runRecords: port }, "Ev1") }, recorder);
  const ev = (event: TraceEvent["event"], step: number, data: Record<string, unknown> = {}) =>
    recorder.onTraceEvent({ event, runId: "r", sessionKey: "s", step, ...data });
  const modelStep = (step: number) => {
    ev("model.request", step, { model: "m" });
    ev("model.response", step, { model: "m", usage: { promptTokens: 7, completionTokens: 3 } });
  };
  return { calls, written, recorder, deps, modelStep };
}

describe("a checkpoint carrying the run record's write", () => {
  it("the batch goes in the checkpoint's statement: one call where there were two", async () => {
    const h = harness({ combined: async () => true });
    h.modelStep(1);
    await h.deps.checkpoint!(snapshot(1));
    await h.recorder.settled();
    expect(h.calls).toEqual(["checkpoint+write 1 Ev1"]);
    expect(h.written[0]).toMatchObject({ requestText: "hi", totals: { step: 1, modelCalls: 1 } });
    expect(h.written[0]!.steps.map((s) => [s.seq, s.kind])).toEqual([[1, "model"]]);
    // Nothing new at the next checkpoint: the checkpoint goes alone, and no write follows.
    await h.deps.checkpoint!(snapshot(1));
    await h.recorder.settled();
    expect(h.calls).toEqual(["checkpoint+write 1 Ev1", "checkpoint 1 Ev1"]);
  });

  it("without the port's combined write: the checkpoint, then the record's write, as two", async () => {
    const h = harness({});
    h.modelStep(1);
    await h.deps.checkpoint!(snapshot(1));
    await h.recorder.settled();
    expect(h.calls).toEqual(["checkpoint 1 Ev1", "write"]);
    expect(h.written[0]).toMatchObject({ requestText: "hi", totals: { step: 1, modelCalls: 1 } });
  });

  it("the statement with both fails: the checkpoint lands alone, then the same batch in its own write", async () => {
    const h = harness({ combined: () => Promise.reject(new Error("integer out of range")) });
    h.modelStep(1);
    await h.deps.checkpoint!(snapshot(1));
    await h.recorder.settled();
    expect(h.calls).toEqual(["checkpoint+write 1 Ev1", "checkpoint 1 Ev1", "write"]);
    const [carried, retried] = h.written;
    expect(retried!.steps).toEqual(carried!.steps);
    expect(retried).toMatchObject({ requestText: "hi", totals: { step: 1, modelCalls: 1 } });
  });

  it("both fail: the checkpoint's own error, as without a record; the batch waits for the next write", async () => {
    const down = new HermesError("storage_unavailable", "The database is unreachable.");
    const h = harness({
      combined: () => Promise.reject(new Error("connection reset")),
      checkpoint: () => Promise.reject(down),
    });
    h.modelStep(1);
    await expect(h.deps.checkpoint!(snapshot(1))).rejects.toBe(down);
    await h.recorder.settled();
    expect(h.calls).toEqual(["checkpoint+write 1 Ev1", "checkpoint 1 Ev1"]);
    h.recorder.fail("error", "The database is unreachable.");
    await h.recorder.settled();
    expect(h.calls.at(-1)).toBe("write");
    expect(h.written.at(-1)!.steps.map((s) => s.kind)).toEqual(["model", "note"]);
    expect(h.written.at(-1)).toMatchObject({ requestText: "hi", totals: { modelCalls: 1 } });
  });

  it("a run no longer running: stopped as before, nothing of the record written with it", async () => {
    const h = harness({ combined: async () => false });
    h.modelStep(1);
    const stopped = await h.deps.checkpoint!(snapshot(1)).catch((err: unknown) => err);
    expect(isHermesError(stopped) && stopped.code).toBe("storage_unavailable");
    expect(String((stopped as Error).message)).toContain("no longer running");
    await h.recorder.settled();
    expect(h.calls).toEqual(["checkpoint+write 1 Ev1"]);
    h.recorder.fail("error", "stopped");
    await h.recorder.settled();
    expect(h.written.at(-1)).toMatchObject({ requestText: "hi", totals: { modelCalls: 1 } });
    expect(h.written.at(-1)!.steps.map((s) => s.kind)).toEqual(["model", "note"]);
  });
});
