import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countsBetween,
  type PgStatementCounter,
  startPgStatementCounter,
} from "../../bench/lib/pg-statement-counter.ts";
import { emptyUsage } from "../../src/agent/context/messages.ts";
import type { RunRecordPort } from "../../src/agent/record/record-port.ts";
import { createRunRecorder } from "../../src/agent/record/recorder.ts";
import { type RunSnapshot, SNAPSHOT_VERSION } from "../../src/agent/run/snapshot.ts";
import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createRedactor } from "../../src/policy/redact.ts";
import { withRunRecorder } from "../../src/queue/open-recorder.ts";
import { runCheckpoint } from "../../src/queue/recover-run.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { createRunRecordStore } from "../../src/store/run-record-store.ts";
import { createRunStore } from "../../src/store/run-store.ts";
import { createTestDatabase, execSql, type TestDatabase } from "../helpers/pg.ts";

const snapshot = (runId: string, step: number): RunSnapshot => ({
  version: SNAPSHOT_VERSION,
  run: { runId, sessionKey: "T1:C1:1.0", userId: "U1", teamId: "T1", channelId: "C1", threadTs: "1.0" },
  messages: [{ role: "user", content: "hi" }],
  pending: [],
  step,
  usage: emptyUsage(),
  modelCalls: step,
  failures: {},
  truncations: 0,
});

/**
 * A worker's checkpoint with its run record, counted on the wire (the benchmark's proxy between the
 * pool and Postgres): the record's pending batch goes in the checkpoint's statement, one statement
 * where there were two; a batch Postgres refuses fails that statement, and the checkpoint still
 * lands, alone.
 */
describe("checkpoint and run record statements (Postgres, counted through a proxy)", () => {
  let db: TestDatabase;
  let counter: PgStatementCounter;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    db = await createTestDatabase();
    const direct = await openDatabase({ databaseUrl: db.url, dataDir: "", logger: silentLogger() });
    await migrate(direct);
    await direct.close();
    counter = await startPgStatementCounter(db.url);
    handle = await openDatabase({
      databaseUrl: counter.proxiedUrl(db.url),
      dataDir: "",
      logger: silentLogger(),
      maxConnections: 1,
    });
  }, 120_000);
  afterAll(async () => {
    await handle?.close();
    await counter?.close();
    await db?.drop();
  });

  /** One model step recorded, then the run's checkpoint: the statements it took, and the run's row. */
  async function checkpointAfterAStep(runId: string, o: { combined: boolean; modelMs?: number }) {
    const runs = createRunStore({ db: handle.db });
    const store = createRunRecordStore({ db: handle.db, redact: createRedactor().redact });
    const port: RunRecordPort = o.combined ? store : { reopen: store.reopen, write: store.write };
    let clock = 0;
    const recorder = createRunRecorder({
      port,
      runId,
      prices: {},
      logger: silentLogger(),
      requestText: "what time is it?",
      now: () => clock,
    });
    const deps = withRunRecorder(
      { checkpoint: runCheckpoint({ runs, runRecords: port }, `Ev_${runId}`) },
      recorder,
    );
    const ev = (event: TraceEvent["event"], data: Record<string, unknown> = {}) =>
      recorder.onTraceEvent({ event, runId, sessionKey: "s", step: 1, ...data });
    ev("model.request", { model: "m" });
    clock += o.modelMs ?? 120;
    ev("model.response", { model: "m", usage: { promptTokens: 7, completionTokens: 3 } });
    const before = counter.snapshot();
    await deps.checkpoint!(snapshot(runId, 1));
    await recorder.settled(30_000);
    const counted = countsBetween(before, counter.snapshot());
    const [row] = await execSql(
      handle.db,
      `SELECT status, event_id, (snapshot->>'step')::int AS step, request_text, model_calls, model_ms,
        (SELECT count(*)::int FROM run_steps WHERE run_id = '${runId}') AS rows
       FROM runs WHERE id = '${runId}'`,
    );
    return { statements: counted.total, row };
  }

  it("the record's batch in the checkpoint's statement: one statement where there were two, the same record", async () => {
    const apart = await checkpointAfterAStep("run_apart", { combined: false });
    const together = await checkpointAfterAStep("run_together", { combined: true });
    expect(apart.statements).toBe(2);
    expect(together.statements).toBe(1);
    const record = {
      status: "running",
      step: 1,
      request_text: "what time is it?",
      model_calls: 1,
      model_ms: 120,
      rows: 1,
    };
    expect(apart.row).toMatchObject({ ...record, event_id: "Ev_run_apart" });
    expect(together.row).toMatchObject({ ...record, event_id: "Ev_run_together" });
  });

  it("a batch Postgres refuses fails the statement with both: the checkpoint lands alone, the run goes on", async () => {
    // A model call "taking" 3e9 ms: more than the record's integer columns hold.
    const refused = await checkpointAfterAStep("run_refused", { combined: true, modelMs: 3e9 });
    // The statement with both, the checkpoint alone, then the record's own write (refused again, kept).
    expect(refused.statements).toBe(3);
    expect(refused.row).toMatchObject({
      status: "running",
      event_id: "Ev_run_refused",
      step: 1,
      request_text: null,
      model_calls: 0,
      rows: 0,
    });
  });
});
