import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/agent/context/messages.ts";
import type { RunRecordWrite, RunStepDraft } from "../../src/agent/record/record-port.ts";
import { type RunSnapshot, SNAPSHOT_VERSION } from "../../src/agent/run/snapshot.ts";
import { createRedactor } from "../../src/policy/redact.ts";
import { createRunRecordStore } from "../../src/store/run-record-store.ts";
import { createRunStore } from "../../src/store/run-store.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const snapshot = (runId: string, step: number): RunSnapshot => ({
  version: SNAPSHOT_VERSION,
  run: { runId, sessionKey: "T1:C1:1.0", userId: "U1", teamId: "T1", channelId: "C1", threadTs: "1.0" },
  messages: [{ role: "user", content: `step ${step}` }],
  pending: [],
  step,
  usage: emptyUsage(),
  modelCalls: step,
  failures: {},
  truncations: 0,
});

const row = (seq: number, over: Partial<RunStepDraft> = {}): RunStepDraft => ({
  seq,
  step: 1,
  kind: "model",
  name: "m",
  status: "ok",
  startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)),
  durationMs: 100 * seq,
  promptTokens: 10,
  completionTokens: 2,
  costUsd: 0.001,
  data: { note: `mail li.ming@example.com, row ${seq}` },
  ...over,
});

const totals = (over: Partial<RunRecordWrite["totals"]> = {}): RunRecordWrite["totals"] => ({
  step: 1,
  modelCalls: 1,
  promptTokens: 10,
  completionTokens: 2,
  costUsd: 0.001,
  models: ["m"],
  modelMs: 100,
  toolMs: 0,
  ownMs: 7,
  ...over,
});

/** A run's record writes as a run makes them: the first with the request, a tool row rewritten, the end. */
const batches = (runId: string): RunRecordWrite[] => [
  { runId, steps: [row(1)], totals: totals(), requestText: "call +86 138 0013 8000 please" },
  {
    runId,
    steps: [row(2, { kind: "tool", name: "lookup", status: "running", costUsd: null })],
    totals: totals({ step: 2, modelCalls: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, models: [] }),
  },
  {
    runId,
    steps: [row(2, { kind: "tool", name: "lookup", status: "ok", costUsd: null }), row(3, { name: "m2" })],
    totals: totals({ step: 2, models: ["m2", "m"], toolMs: 40, costUsd: null }),
  },
  {
    runId,
    steps: [],
    totals: totals({
      step: 2,
      modelCalls: 0,
      final: { modelCalls: 3, promptTokens: 30, completionTokens: 6 },
      costUsd: 0,
      models: [],
    }),
    stopReason: "done",
  },
];

const RECORD = `steps, model_calls, prompt_tokens, completion_tokens, cost_usd, models, model_ms, tool_ms,
  own_ms, request_text, stop_reason, status, team_id, channel_id, thread_ts, event_id, session_key, user_id, snapshot`;

/**
 * The run record's write in the statement of the run's checkpoint (`writeWithCheckpoint`), on both
 * drivers: the run's row and its steps come out the same as from the checkpoint and the write sent
 * one after the other; a run no longer running gets neither.
 */
describe.each(DRIVERS)("a run record write with its checkpoint on %s", (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
  }, 120_000);
  afterAll(() => store?.cleanup());

  const read = async (runId: string) => ({
    run: (await execSql(store.handle.db, `SELECT ${RECORD} FROM runs WHERE id = '${runId}'`))[0],
    steps: await execSql(
      store.handle.db,
      `SELECT seq, step, kind, name, status, started_at, duration_ms, prompt_tokens, completion_tokens, cost_usd, data
       FROM run_steps WHERE run_id = '${runId}' ORDER BY seq`,
    ),
  });

  it("one statement writes what the checkpoint and the write wrote one after the other", async () => {
    const runs = createRunStore(store.handle);
    const port = createRunRecordStore({ db: store.handle.db, redact: createRedactor().redact });
    for (const [i, w] of batches("run_apart").entries()) {
      expect(await runs.checkpoint(snapshot("run_apart", i + 1), { eventId: "Ev_apart" })).toBe(true);
      await port.write(w);
    }
    for (const [i, w] of batches("run_together").entries())
      expect(
        await port.writeWithCheckpoint!(w, {
          snapshot: snapshot("run_together", i + 1),
          eventId: "Ev_together",
        }),
      ).toBe(true);

    const apart = await read("run_apart");
    const together = await read("run_together");
    expect(together.steps).toEqual(apart.steps);
    expect({ ...together.run, event_id: null, snapshot: null }).toEqual({
      ...apart.run,
      event_id: null,
      snapshot: null,
    });
    expect(together.run!.event_id).toBe("Ev_together");
    expect((together.run!.snapshot as RunSnapshot).run.runId).toBe("run_together");
    expect(together.run).toMatchObject({
      steps: 2,
      model_calls: 3,
      cost_usd: null,
      models: ["m", "m2"],
      tool_ms: 40,
      stop_reason: "done",
      status: "running",
    });
    expect(together.run!.request_text).not.toContain("138 0013 8000");
    expect(together.steps.map((s) => [s.seq, s.kind, s.status])).toEqual([
      [1, "model", "ok"],
      [2, "tool", "ok"],
      [3, "model", "ok"],
    ]);
  });

  it("a run no longer running: false, and neither its checkpoint nor its record is written", async () => {
    const runs = createRunStore(store.handle);
    const port = createRunRecordStore({ db: store.handle.db, redact: createRedactor().redact });
    const [first, second] = batches("run_done");
    expect(await port.writeWithCheckpoint!(first!, { snapshot: snapshot("run_done", 1) })).toBe(true);
    expect(await runs.finish("run_done", "completed")).toBe(true);
    const finished = await read("run_done");
    expect(await port.writeWithCheckpoint!(second!, { snapshot: snapshot("run_done", 2) })).toBe(false);
    expect(await read("run_done")).toEqual(finished);
    expect(finished.steps.map((s) => s.seq)).toEqual([1]);
  });
});
