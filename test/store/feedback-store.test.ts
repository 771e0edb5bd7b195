import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { createFeedbackStore, type FeedbackStore } from "../../src/store/feedback-store.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

describe.each(DRIVERS)("feedback store on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  let feedback: FeedbackStore;
  const sql = <T extends Record<string, unknown>>(text: string) => execSql<T>(store.handle.db, text);

  beforeAll(async () => {
    store = await openTestStore(kind);
    audit = createAuditLog({ db: store.handle.db });
    feedback = createFeedbackStore({ db: store.handle.db, audit });
    await sql(
      `insert into runs (id, session_key, snapshot, user_id) values ('run_a', 'T1:C1:1.0', '{}', 'U0ASKER')`,
    );
  });
  afterAll(() => store?.cleanup());

  it("one row per run and user: the last click wins, every click is audited in the chain", async () => {
    const click = { runId: "run_a", userId: "U0ONE", teamId: "T1", channelId: "C1", messageTs: "1.000100" };
    expect(await feedback.record({ ...click, value: "up" })).toEqual({ kind: "recorded", previous: null });
    expect(await feedback.record({ ...click, value: "down" })).toEqual({ kind: "recorded", previous: "up" });
    expect(await feedback.record({ ...click, userId: "U0TWO", value: "up" })).toEqual({
      kind: "recorded",
      previous: null,
    });
    expect(
      (await feedback.forRun("run_a")).map((r) => [r.userId, r.value, r.channelId, r.messageTs]),
    ).toEqual([
      ["U0ONE", "down", "C1", "1.000100"],
      ["U0TWO", "up", "C1", "1.000100"],
    ]);
    const rows = await sql<{
      tool: string;
      actor_id: string;
      run_id: string;
      args: unknown;
      team_id: string;
    }>(
      `select tool, actor_id, run_id, args, team_id from audit_log where action = 'run.feedback' order by id`,
    );
    expect(rows.map((r) => [r.actor_id, r.run_id, r.args, r.team_id])).toEqual([
      ["U0ONE", "run_a", { value: "up" }, "T1"],
      ["U0ONE", "run_a", { value: "down" }, "T1"],
      ["U0TWO", "run_a", { value: "up" }, "T1"],
    ]);
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("concurrent clicks by one user leave one row whose value is the last audited one", async () => {
    await sql(`insert into runs (id, session_key, snapshot) values ('run_b', 'T1:C1:2.0', '{}')`);
    const values = ["up", "down", "up", "down", "down", "up"] as const;
    await Promise.all(values.map((value) => feedback.record({ runId: "run_b", userId: "U0ONE", value })));
    const rows = await feedback.forRun("run_b");
    expect(rows).toHaveLength(1);
    const [last] = await sql<{ args: { value: string } }>(
      `select args from audit_log where action = 'run.feedback' and run_id = 'run_b' order by id desc limit 1`,
    );
    expect(rows[0]!.value).toBe(last!.args.value);
  });

  it("a run Hermes has no record of stores nothing and audits nothing", async () => {
    const before = await sql<{ n: number }>(`select count(*)::int as n from audit_log`);
    expect(await feedback.record({ runId: "run_missing", userId: "U0ONE", value: "up" })).toEqual({
      kind: "unknown_run",
    });
    expect(await feedback.forRun("run_missing")).toEqual([]);
    expect(await sql<{ n: number }>(`select count(*)::int as n from audit_log`)).toEqual(before);
  });
});
