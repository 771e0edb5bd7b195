import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditLog } from "../../src/store/audit.ts";
import { sweepRetention } from "../../src/store/retention.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const ago = (days: number) => `now() - interval '${days} days'`;

/**
 * Retention (HERMES_RETENTION_DAYS): finished rows older than the period go, in batches; recent
 * rows, unfinished ones and anything a paused or running run may still need stay; the audit log is
 * never touched and its chain still verifies.
 */
describe.each(DRIVERS)("retention sweep on %s", (kind) => {
  let store: TestStore;
  const count = async (table: string, where = "true") =>
    (
      await execSql<{ n: number }>(store.handle.db, `SELECT count(*)::int AS n FROM ${table} WHERE ${where}`)
    )[0]!.n;

  beforeAll(async () => {
    store = await openTestStore(kind);
    const db = store.handle.db;
    const audit = createAuditLog({ db });
    for (let i = 0; i < 5; i++)
      await audit.append({ action: "tool.requested", tool: "get_ticket", runId: "r" });
    await execSql(
      db,
      `INSERT INTO runs (id, session_key, status, snapshot, updated_at) VALUES
        ('run_old_done', 'T:C:1', 'completed', '{}', ${ago(40)}),
        ('run_old_paused', 'T:C:2', 'paused', '{}', ${ago(40)}),
        ('run_old_running', 'T:C:3', 'running', '{}', ${ago(40)}),
        ('run_new_done', 'T:C:4', 'completed', '{}', now())`,
    );
    // Runs' records: timelines and feedback go with their run, and only with it.
    await execSql(
      db,
      `INSERT INTO run_steps (run_id, seq, kind, started_at) VALUES
        ('run_old_done', 1, 'model', ${ago(40)}), ('run_old_done', 2, 'tool', ${ago(40)}),
        ('run_old_paused', 1, 'model', ${ago(40)}), ('run_new_done', 1, 'model', now())`,
    );
    await execSql(
      db,
      `INSERT INTO run_feedback (run_id, user_id, value) VALUES
        ('run_old_done', 'U1', 'up'), ('run_new_done', 'U1', 'down')`,
    );
    // 2,500 old results of a finished run: more than two batches of 1,000.
    await execSql(
      db,
      `INSERT INTO results (id, run_id, tool, content, created_at)
         SELECT 'res_old_' || g, 'run_old_done', 'search_tickets', 'x', ${ago(31)} FROM generate_series(1, 2500) g`,
    );
    await execSql(
      db,
      `INSERT INTO results (id, run_id, tool, content, created_at) VALUES
        ('res_paused', 'run_old_paused', 'search_tickets', 'x', ${ago(40)}),
        ('res_running', 'run_old_running', 'search_tickets', 'x', ${ago(40)}),
        ('res_new', 'run_new_done', 'search_tickets', 'x', ${ago(29)})`,
    );
    await execSql(
      db,
      `INSERT INTO slack_events (event_id, status, received_at, finished_at, payload) VALUES
        ('Ev_old_done', 'done', ${ago(40)}, ${ago(40)}, NULL),
        ('Ev_old_failed', 'failed', ${ago(40)}, ${ago(40)}, NULL),
        ('Ev_old_pending', 'received', ${ago(40)}, NULL, '{"type":"turn"}'),
        ('Ev_new_done', 'done', ${ago(1)}, ${ago(1)}, NULL)`,
    );
    await execSql(
      db,
      `INSERT INTO schedules (id, cron, channel_id, prompt, owner_id) VALUES (1, '0 9 * * *', 'C1', 'p', 'U1')`,
    );
    await execSql(
      db,
      `INSERT INTO schedule_fires (schedule_id, fire_at, claimed_at, status) VALUES
        (1, ${ago(40)}, ${ago(40)}, 'done'),
        (1, ${ago(39)}, ${ago(39)}, 'claimed'),
        (1, ${ago(2)}, ${ago(2)}, 'done')`,
    );
  }, 120_000);
  afterAll(() => store?.cleanup());

  it("deletes old finished rows in batches and keeps recent, unfinished and audit rows", async () => {
    const db = store.handle.db;
    const auditBefore = await count("audit_log");
    const counts = await sweepRetention({ db, days: 30, batchSize: 1000 });
    expect(counts).toEqual({
      results: 2500,
      slack_events: 2,
      schedule_fires: 1,
      runs: 1,
      run_steps: 2,
      run_feedback: 1,
    });
    expect(await count("run_steps", "run_id = 'run_old_done'")).toBe(0);
    expect(await count("run_steps")).toBe(2);
    expect(await count("run_feedback")).toBe(1);

    expect(await count("results", "id LIKE 'res_old_%'")).toBe(0);
    expect(
      (await execSql<{ id: string }>(db, "SELECT id FROM results ORDER BY id")).map((r) => r.id),
    ).toEqual(["res_new", "res_paused", "res_running"]);
    expect(
      (await execSql<{ event_id: string }>(db, "SELECT event_id FROM slack_events ORDER BY 1")).map(
        (r) => r.event_id,
      ),
    ).toEqual(["Ev_new_done", "Ev_old_pending"]);
    expect(await count("schedule_fires")).toBe(2);
    expect(await count("schedule_fires", "status = 'claimed'")).toBe(1);
    expect((await execSql<{ id: string }>(db, "SELECT id FROM runs ORDER BY 1")).map((r) => r.id)).toEqual([
      "run_new_done",
      "run_old_paused",
      "run_old_running",
    ]);

    expect(await count("audit_log")).toBe(auditBefore);
    expect((await createAuditLog({ db }).verify()).ok).toBe(true);

    // A second sweep finds nothing; 0 days keeps everything.
    expect(await sweepRetention({ db, days: 30 })).toEqual({
      results: 0,
      slack_events: 0,
      schedule_fires: 0,
      runs: 0,
      run_steps: 0,
      run_feedback: 0,
    });
    await execSql(db, `UPDATE runs SET updated_at = ${ago(400)} WHERE id = 'run_new_done'`);
    expect((await sweepRetention({ db, days: 0 })).runs).toBe(0);
    expect(await count("runs", "id = 'run_new_done'")).toBe(1);

    // HERMES_RUN_RETENTION_DAYS: runs' records on their own period (0 keeps them while others go).
    expect((await sweepRetention({ db, days: 500, runDays: 0 })).runs).toBe(0);
    await execSql(
      db,
      `UPDATE runs SET finished_at = ${ago(10)}, updated_at = ${ago(10)} WHERE id = 'run_new_done'`,
    );
    expect(await sweepRetention({ db, days: 0, runDays: 7 })).toMatchObject({
      runs: 1,
      run_steps: 1,
      run_feedback: 1,
    });
    expect(await count("runs", "id = 'run_new_done'")).toBe(0);
    expect(await count("audit_log")).toBe(auditBefore);
  });
});
