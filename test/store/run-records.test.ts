import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRunRecorder } from "../../src/agent/record/recorder.ts";
import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createRedactor } from "../../src/policy/redact.ts";
import { createRunQuery } from "../../src/store/run-query.ts";
import {
  createRunRecordStore,
  MAX_REQUEST_TEXT,
  MAX_RESULT_PREVIEW,
} from "../../src/store/run-record-store.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const run = (id: string) => ({ runId: id, sessionKey: "T1:C1:1.0", userId: "U1" });

/**
 * The recorder's Postgres port and the read side on both drivers: rows upserted by seq as they
 * change, totals added up per write, unknown prices make the cost null, approvals closed on reopen,
 * everything textual redacted and capped, lists filtered newest first with feedback counts.
 */
describe.each(DRIVERS)("run records on %s", (kind) => {
  let store: TestStore;
  const redactor = createRedactor();
  beforeAll(async () => {
    store = await openTestStore(kind);
  }, 120_000);
  afterAll(() => store?.cleanup());

  async function insertRun(id: string, over: Record<string, string> = {}) {
    const cols = {
      id,
      session_key: "T1:C1:1.0",
      status: "running",
      snapshot: "{}",
      user_id: "U1",
      cost_usd: "0",
      ...over,
    };
    await execSql(
      store.handle.db,
      `INSERT INTO runs (${Object.keys(cols).join(", ")}) VALUES (${Object.values(cols)
        .map((v) => `'${v}'`)
        .join(", ")})`,
    );
  }

  it("a recorder's writes: steps in seq order (a running tool rewritten when done), totals, redaction and caps", async () => {
    const db = store.handle.db;
    await insertRun("run_a");
    const port = createRunRecordStore({ db, redact: redactor.redact });
    let clock = 1_000_000;
    const rec = createRunRecorder({
      port,
      runId: "run_a",
      prices: { "gpt-x": { input: 1, output: 2 } },
      logger: silentLogger(),
      requestText: `mail li.ming@example.com ${"long ".repeat(200)}`,
      now: () => clock,
    });
    const ev = (event: TraceEvent["event"], step: number, data: Record<string, unknown> = {}) =>
      rec.onTraceEvent({ event, runId: "run_a", sessionKey: "s", step, ...data });
    ev("model.request", 1, { model: "gpt-x" });
    clock += 200;
    ev("model.response", 1, {
      model: "gpt-x",
      answeredBy: "gpt-x-2025-01-01",
      usage: { promptTokens: 1000, completionTokens: 100 },
      finishReason: "tool_calls",
      toolCalls: ["lookup"],
      latencyMs: 190,
      repairs: [],
    });
    ev("model.format", 1, { format: "hermes_json", from: "content" });
    rec.onToolEvent({
      action: "tool.requested",
      run: run("run_a"),
      callId: "c1",
      tool: "lookup",
      args: { email: "ops@example.com", token: "xoxb-123456789012-abcdefghijkl" },
      argsSha256: "h",
    });
    ev("tool.policy", 1, { tool: "lookup", callId: "c1", decision: "allow" });
    ev("tool.start", 1, { tool: "lookup", callId: "c1" });
    await rec.settled();
    // Mid-tool, the record already shows the model call and the tool running.
    const mid = await createRunQuery({ db }).get("run_a");
    expect(mid!.timeline.map((s) => [s.kind, s.status])).toEqual([
      ["model", "ok"],
      ["tool", "running"],
    ]);
    clock += 50;
    ev("tool.end", 1, { tool: "lookup", callId: "c1", ok: true, durationMs: 50 });
    rec.onToolEvent({
      action: "tool.executed",
      run: run("run_a"),
      callId: "c1",
      tool: "lookup",
      args: {},
      argsSha256: "h",
      resultSummary: `Found: call +86 138 0013 8000. ${"x".repeat(1000)}`,
    });
    clock += 10;
    ev("model.request", 2, { model: "gpt-x" });
    clock += 100;
    ev("model.response", 2, {
      model: "gpt-x",
      usage: { promptTokens: 10, completionTokens: 5 },
      finishReason: "stop",
    });
    clock += 5;
    ev("run.end", 2, {
      status: "completed",
      steps: 2,
      modelCalls: 3,
      usage: { promptTokens: 1500, completionTokens: 120 },
    });
    await rec.settled();

    const r = (await createRunQuery({ db }).get("run_a"))!;
    expect(r.timeline.map((s) => [s.seq, s.kind, s.name, s.status, s.durationMs])).toEqual([
      [1, "model", "gpt-x-2025-01-01", "ok", 200],
      [2, "tool", "lookup", "ok", 50],
      [3, "model", "gpt-x", "ok", 100],
    ]);
    // The dated model name takes its base name's price.
    expect(r.timeline[0]!.costUsd).toBeCloseTo((1000 * 1 + 100 * 2) / 1e6, 12);
    expect(r.timeline[0]!.data).toMatchObject({ formatRecovered: "hermes_json", configuredModel: "gpt-x" });
    const tool = r.timeline[1]!.data as { args: Record<string, string>; resultPreview: string };
    expect(JSON.stringify(tool.args)).not.toMatch(/ops@example\.com|xoxb-1234/);
    expect(tool.resultPreview).not.toContain("138 0013 8000");
    expect(tool.resultPreview.length).toBeLessThanOrEqual(MAX_RESULT_PREVIEW + 1);
    expect(r.requestText).not.toContain("li.ming@example.com");
    expect(r.requestText!.length).toBeLessThanOrEqual(MAX_REQUEST_TEXT + 1);
    // The run's end gives the cumulative counts (summaries included); steps and models add up.
    expect(r).toMatchObject({ steps: 2, modelCalls: 3, promptTokens: 1500, completionTokens: 120 });
    expect(r.models).toEqual(["gpt-x-2025-01-01", "gpt-x"]);
    expect(r.modelMs).toBe(300);
    expect(r.toolMs).toBe(50);
    expect(r.ownMs).toBe(15);
    expect(r.costUsd).toBeCloseTo((1200 + 20) / 1e6, 12);
  });

  it("a model without a price makes the run's cost unknown (null), for good", async () => {
    const db = store.handle.db;
    await insertRun("run_b");
    const port = createRunRecordStore({ db, redact: redactor.redact });
    const rec = createRunRecorder({
      port,
      runId: "run_b",
      prices: { priced: { input: 1, output: 1 } },
      logger: silentLogger(),
    });
    const ev = (event: TraceEvent["event"], step: number, data: Record<string, unknown> = {}) =>
      rec.onTraceEvent({ event, runId: "run_b", sessionKey: "s", step, ...data });
    ev("model.request", 1, { model: "mystery" });
    ev("model.response", 1, { model: "mystery", usage: { promptTokens: 10, completionTokens: 1 } });
    rec.flush();
    ev("model.request", 2, { model: "priced" });
    ev("model.response", 2, { model: "priced", usage: { promptTokens: 10, completionTokens: 1 } });
    rec.flush();
    await rec.settled();
    const r = (await createRunQuery({ db }).get("run_b"))!;
    expect(r.costUsd).toBeNull();
    expect(r.timeline.map((s) => s.costUsd)).toEqual([null, expect.closeTo(11 / 1e6, 12)]);
  });

  it("reopen closes the approvals a run paused for: decision, who, and the wait from pause to now", async () => {
    const db = store.handle.db;
    await insertRun("run_c", { status: "paused" });
    await execSql(
      db,
      `INSERT INTO run_steps (run_id, seq, kind, name, status, started_at, data) VALUES
        ('run_c', 1, 'model', 'm', 'ok', now() - interval '5 seconds', '{}'),
        ('run_c', 2, 'approval', 'send_message', 'pending', now() - interval '4 seconds', '{"callId":"call_9"}')`,
    );
    await execSql(
      db,
      `INSERT INTO approvals (id, status, tool, args, args_sha256, requester_id, session_key, run_id, tool_call_id, expires_at, decided_by, decided_at)
       VALUES ('apr_1', 'approved', 'send_message', '{}', 'h', 'U1', 's', 'run_c', 'call_9', now() + interval '1 hour', 'U0ADMIN', now())`,
    );
    const port = createRunRecordStore({ db, redact: redactor.redact });
    const opened = await port.reopen("run_c");
    expect(opened).toEqual({
      nextSeq: 3,
      approvals: { call_9: { approvalId: "apr_1", status: "approved", decidedBy: "U0ADMIN" } },
    });
    const r = (await createRunQuery({ db }).get("run_c"))!;
    expect(r.approvalWaitMs).toBeGreaterThanOrEqual(3900);
    expect(r.timeline[1]).toMatchObject({ kind: "approval", status: "approved" });
    expect(r.timeline[1]!.data).toMatchObject({ approvalId: "apr_1", decidedBy: "U0ADMIN" });
    // A second reopen finds nothing pending: the wait is not counted twice.
    await port.reopen("run_c");
    expect((await createRunQuery({ db }).get("run_c"))!.approvalWaitMs).toBe(r.approvalWaitMs);
  });

  it("list: newest first, filtered by user, channel, status and since, limited, with feedback counts", async () => {
    const db = store.handle.db;
    for (let i = 0; i < 5; i++)
      await insertRun(`run_l${i}`, {
        user_id: i % 2 ? "U_ODD" : "U_EVEN",
        channel_id: "C_LIST",
        status: i === 4 ? "failed" : "completed",
        created_at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
      });
    await execSql(
      db,
      `INSERT INTO run_feedback (run_id, user_id, value) VALUES ('run_l4', 'A', 'up'), ('run_l4', 'B', 'down'), ('run_l4', 'C', 'down')`,
    );
    const q = createRunQuery({ db });
    expect((await q.list({ channelId: "C_LIST" })).map((r) => r.runId)).toEqual([
      "run_l4",
      "run_l3",
      "run_l2",
      "run_l1",
      "run_l0",
    ]);
    expect((await q.list({ channelId: "C_LIST", userId: "U_ODD" })).map((r) => r.runId)).toEqual([
      "run_l3",
      "run_l1",
    ]);
    const [failed] = await q.list({ channelId: "C_LIST", status: "failed" });
    expect(failed).toMatchObject({ runId: "run_l4", feedback: { up: 1, down: 2 } });
    expect((await q.list({ channelId: "C_LIST", since: new Date(Date.UTC(2026, 0, 4)) })).length).toBe(2);
    expect((await q.list({ channelId: "C_LIST", limit: 2 })).length).toBe(2);
    expect((await q.list({ channelId: "C_LIST", limit: 1000 })).length).toBe(5);
    expect(await q.get("run_nope")).toBeUndefined();
  });
});
