import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunRecorder } from "../../src/agent/record/recorder.ts";
import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createRedactor } from "../../src/policy/redact.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { createRunQuery } from "../../src/store/run-query.ts";
import { createRunRecordStore } from "../../src/store/run-record-store.ts";
import { createTestDatabase, execSql, type TestDatabase } from "../helpers/pg.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";

/**
 * Postgres unreachable while a run is recorded (through a TCP proxy that drops or hangs its
 * connections): the worker's wait for the record is bounded, what did not land is kept and written
 * with the next write once the database is back, and writes never pile up.
 */
describe("run record while Postgres is unreachable", () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    db = await createTestDatabase();
    const direct = await openDatabase({ databaseUrl: db.url, dataDir: "", logger: silentLogger() });
    await migrate(direct);
    await direct.close();
    proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(db.url).port || 5432) });
    handle = await openDatabase({ databaseUrl: proxy.url(db.url), dataDir: "", logger: silentLogger() });
    await execSql(
      handle.db,
      `INSERT INTO runs (id, session_key, status, snapshot, cost_usd) VALUES ('run_o', 's', 'running', '{}', 0)`,
    );
  }, 120_000);
  afterAll(async () => {
    proxy?.restore();
    await handle?.close();
    await proxy?.close();
    await db?.drop();
  });

  it("a hung database holds the worker at most the settle bound; the batch lands after recovery", async () => {
    let writes = 0;
    const store = createRunRecordStore({ db: handle.db, redact: createRedactor().redact });
    const port = {
      reopen: store.reopen,
      write: (w: Parameters<typeof store.write>[0]) => {
        writes++;
        return store.write(w);
      },
    };
    const rec = createRunRecorder({ port, runId: "run_o", prices: {}, logger: silentLogger() });
    const ev = (event: TraceEvent["event"], step: number, data: Record<string, unknown> = {}) =>
      rec.onTraceEvent({ event, runId: "run_o", sessionKey: "s", step, ...data });
    proxy.hang();
    ev("model.request", 1, { model: "m" });
    ev("model.response", 1, { model: "m", usage: { promptTokens: 7, completionTokens: 3 } });
    rec.flush();
    ev("model.request", 2, { model: "m" });
    ev("model.response", 2, { model: "m", usage: { promptTokens: 7, completionTokens: 3 } });
    rec.flush();
    rec.flush();
    const started = Date.now();
    await rec.settled(500);
    expect(Date.now() - started).toBeLessThan(2000);
    // Three flushes while the first write hangs: one write in flight, the rest coalesced.
    expect(writes).toBe(1);
    proxy.cut();
    proxy.restore();
    // The hung write fails (its connection is gone); its rows and totals go with the next write.
    await rec.settled(30_000);
    rec.flush();
    await rec.settled(30_000);
    const r = (await createRunQuery({ db: handle.db }).get("run_o"))!;
    expect(r.timeline.map((s) => [s.seq, s.kind, s.step])).toEqual([
      [1, "model", 1],
      [2, "model", 2],
    ]);
    expect(r).toMatchObject({
      modelCalls: 2,
      promptTokens: 14,
      completionTokens: 6,
      steps: 2,
      costUsd: null,
    });
    expect(writes).toBeLessThanOrEqual(4);
  }, 120_000);
});
