import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createAuditLog } from "../../src/store/audit.ts";
import { MIGRATIONS_FOLDER } from "../../src/store/migrate.ts";
import { sweepStoredCalls } from "../../src/store/retention-calls.ts";
import { startRetentionSweeps } from "../../src/store/retention-schedule.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

/** Polls `done` until it holds (the sweep runs on its own timer). */
async function until(done: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("the retention timer did not sweep in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const ago = (days: number) => `now() - interval '${days} days'`;
const PHONE = "+1 415-555-0134";

/** A run's full state, as a running or paused run keeps it: the call's raw args, its result, the answer. */
const fullSnapshot = (runId: string, answer = "Done.") =>
  JSON.stringify({
    version: 1,
    run: { runId, sessionKey: "T:C:1", userId: "U1" },
    messages: [
      { role: "user", content: `call ${PHONE}` },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "send_sms", arguments: `{"to":"${PHONE}"}` }],
      },
      { role: "tool", toolCallId: "c1", name: "send_sms", content: `sent to ${PHONE}` },
      { role: "assistant", content: answer },
    ],
    pending: [{ callId: "c2", tool: "send_sms", args: { to: PHONE }, argsSha256: "a".repeat(64) }],
    step: 2,
    usage: { promptTokens: 1, completionTokens: 1 },
    modelCalls: 2,
    failures: {},
    truncations: 0,
  });

/**
 * Retention of what people were asked about: decided and expired approvals and finished runs'
 * snapshots past HERMES_RETENTION_DAYS go, in batches, idempotently; pending approvals, approvals of
 * paused runs, and running or paused runs' state stay; the audit log is never touched. And the
 * migration that brings rows stored before this rule into line with it.
 */
describe.each(DRIVERS)("retention of stored calls on %s", (kind) => {
  let store: TestStore;
  const db = () => store.handle.db;
  const ids = async (sql: string) => (await execSql<{ id: string }>(db(), sql)).map((r) => r.id);
  const snapshotOf = async (id: string) =>
    (
      await execSql<{ s: { messages: unknown[]; pending: unknown[] } }>(
        db(),
        `SELECT snapshot AS s FROM runs WHERE id = '${id}'`,
      )
    )[0]!.s;
  const insertApproval = (
    id: string,
    status: string,
    runId: string,
    decided: string,
    hash = `hmac-sha256:${"b".repeat(64)}`,
  ) =>
    execSql(
      db(),
      `INSERT INTO approvals (id, status, tool, args, args_sha256, requester_id, session_key, run_id, expires_at, decided_at, created_at)
       VALUES ('${id}', '${status}', 'send_sms', '{"to":"${PHONE}"}', '${hash}', 'U1', 'T:C:1', '${runId}',
         ${decided}, ${status === "pending" ? "NULL" : decided}, ${decided})`,
    );
  const insertRun = (id: string, status: string, updated: string) =>
    execSql(
      db(),
      `INSERT INTO runs (id, session_key, status, snapshot, updated_at, finished_at)
       VALUES ('${id}', 'T:C:1', '${status}', '${fullSnapshot(id)}'::jsonb, ${updated},
         ${["completed", "failed", "stopped"].includes(status) ? updated : "NULL"})`,
    );

  beforeAll(async () => {
    store = await openTestStore(kind);
    const audit = createAuditLog({ db: db() });
    for (let i = 0; i < 3; i++) await audit.append({ action: "tool.approved", tool: "send_sms", runId: "r" });
    await insertRun("run_old_done", "completed", ago(40));
    await insertRun("run_old_failed", "failed", ago(40));
    await insertRun("run_new_done", "completed", ago(1));
    await insertRun("run_old_paused", "paused", ago(40));
    await insertRun("run_old_running", "running", ago(40));
    for (let i = 0; i < 5; i++) await insertApproval(`apr_old_${i}`, "approved", "run_old_done", ago(40));
    await insertApproval("apr_old_rejected", "rejected", "run_gone", ago(40));
    await insertApproval("apr_old_expired", "expired", "run_gone", ago(40));
    await insertApproval("apr_old_pending", "pending", "run_old_paused", ago(40));
    await insertApproval("apr_old_of_paused", "approved", "run_old_paused", ago(40));
    await insertApproval("apr_new", "approved", "run_new_done", ago(1));
  }, 120_000);
  afterAll(() => store?.cleanup());

  it("deletes old decided approvals and empties old finished snapshots, in batches, keeping the rest", async () => {
    const auditBefore = await ids("SELECT id::text AS id FROM audit_log");
    expect(await sweepStoredCalls({ db: db(), days: 30, batchSize: 2 })).toEqual({
      approvals: 7,
      run_snapshots: 2,
    });
    expect(await ids("SELECT id FROM approvals ORDER BY id")).toEqual([
      "apr_new",
      "apr_old_of_paused",
      "apr_old_pending",
    ]);
    for (const id of ["run_old_done", "run_old_failed"]) {
      const s = await snapshotOf(id);
      expect(s).toMatchObject({ messages: [], pending: [], step: 2, run: { runId: id } });
      expect(JSON.stringify(s)).not.toContain(PHONE);
    }
    for (const id of ["run_new_done", "run_old_paused", "run_old_running"])
      expect(JSON.stringify(await snapshotOf(id))).toContain(PHONE);

    // Idempotent; 0 days keeps everything; the audit log is untouched and still verifies.
    expect(await sweepStoredCalls({ db: db(), days: 30 })).toEqual({ approvals: 0, run_snapshots: 0 });
    expect(await sweepStoredCalls({ db: db(), days: 0 })).toEqual({ approvals: 0, run_snapshots: 0 });
    expect(await ids("SELECT id::text AS id FROM audit_log")).toEqual(auditBefore);
    expect((await createAuditLog({ db: db() }).verify()).ok).toBe(true);
  });

  it("the retention timer sweeps them too", async () => {
    await insertApproval("apr_timer", "rejected", "run_gone", ago(40));
    const sweeps = startRetentionSweeps({ db: db(), days: 30, logger: silentLogger(), firstAfterMs: 0 });
    try {
      await until(
        async () => (await ids("SELECT id FROM approvals WHERE id = 'apr_timer'")).length === 0,
        30_000,
      );
    } finally {
      await sweeps.stop();
    }
  });

  it("the migration clears what rows stored before the rule kept", async () => {
    await insertRun("run_legacy_done", "completed", ago(1));
    await insertRun("run_legacy_paused", "paused", ago(1));
    const plain = "c".repeat(64);
    await insertApproval("apr_legacy_decided", "approved", "run_legacy_done", ago(1), plain);
    await insertApproval(
      "apr_legacy_pending",
      "pending",
      "run_legacy_paused",
      "now() + interval '1 hour'",
      plain,
    );
    await insertApproval("apr_keyed_decided", "approved", "run_legacy_done", ago(1));
    const migration = readFileSync(join(MIGRATIONS_FOLDER, "0011_stored_call_args.sql"), "utf8");
    for (const statement of migration.split("--> statement-breakpoint")) await execSql(db(), statement);

    expect(await snapshotOf("run_legacy_done")).toMatchObject({
      messages: [{ role: "assistant", content: "Done." }],
      pending: [],
      step: 2,
    });
    expect(JSON.stringify(await snapshotOf("run_legacy_done"))).not.toContain(PHONE);
    expect(JSON.stringify(await snapshotOf("run_legacy_paused"))).toContain(PHONE);
    const rows = await execSql<{ id: string; args: unknown; args_sha256: string }>(
      db(),
      `SELECT id, args, args_sha256 FROM approvals WHERE id IN ('apr_legacy_decided', 'apr_legacy_pending', 'apr_keyed_decided') ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: "apr_keyed_decided", args: { to: PHONE }, args_sha256: `hmac-sha256:${"b".repeat(64)}` },
      { id: "apr_legacy_decided", args: {}, args_sha256: "cleared" },
      { id: "apr_legacy_pending", args: { to: PHONE }, args_sha256: plain },
    ]);
  });
});
