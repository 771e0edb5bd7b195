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

  it("one row per run and user: the other value switches the rating, the last click wins, every click is audited in the chain", async () => {
    const click = { runId: "run_a", userId: "U0ONE", teamId: "T1", channelId: "C1", messageTs: "1.000100" };
    expect(await feedback.record({ ...click, value: "up" })).toEqual({
      kind: "recorded",
      value: "up",
      previous: null,
    });
    // The other value switches the rating.
    expect(await feedback.record({ ...click, value: "down" })).toEqual({
      kind: "recorded",
      value: "down",
      previous: "up",
    });
    expect(await feedback.record({ ...click, userId: "U0TWO", value: "up" })).toEqual({
      kind: "recorded",
      value: "up",
      previous: null,
    });
    expect(
      (await feedback.forRun("run_a")).map((r) => [r.userId, r.value, r.channelId, r.messageTs]),
    ).toEqual([
      ["U0ONE", "down", "C1", "1.000100"],
      ["U0TWO", "up", "C1", "1.000100"],
    ]);
    // The same value again (Slack sends a click that selects a side again after it was unselected)
    // keeps the rating: the app never sees an "unselected" click.
    expect(await feedback.record({ ...click, value: "down" })).toEqual({
      kind: "recorded",
      value: "down",
      previous: "down",
    });
    expect((await feedback.forRun("run_a")).map((r) => [r.userId, r.value])).toEqual([
      ["U0ONE", "down"],
      ["U0TWO", "up"],
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
      ["U0ONE", "run_a", { value: "down", previous: "up" }, "T1"],
      ["U0TWO", "run_a", { value: "up" }, "T1"],
      ["U0ONE", "run_a", { value: "down" }, "T1"],
    ]);
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("concurrent clicks by one user are stored one after the other: the stored rating is the last audited one", async () => {
    await sql(`insert into runs (id, session_key, snapshot) values ('run_b', 'T1:C1:2.0', '{}')`);
    const values = ["up", "down", "up", "up", "down", "down", "up"] as const;
    const results = await Promise.all(
      values.map((value) => feedback.record({ runId: "run_b", userId: "U0ONE", value })),
    );
    const audited = await sql<{ args: { value: string; previous?: string } }>(
      `select args from audit_log where action = 'run.feedback' and run_id = 'run_b' order by id`,
    );
    expect(audited).toHaveLength(values.length);
    // Serialized: each audited switch names the rating the click before it left.
    let rating: string | null = null;
    for (const { args } of audited) {
      if (args.previous !== undefined) expect(args.previous).toBe(rating);
      if (rating !== null && args.value !== rating) expect(args.previous).toBe(rating);
      rating = args.value;
    }
    const rows = await feedback.forRun("run_b");
    expect(rows.map((r) => r.value)).toEqual([rating]);
    expect(results.every((r) => r.kind === "recorded")).toBe(true);
    expect(results.map((r) => (r.kind === "recorded" ? r.value : undefined)).sort()).toEqual(
      [...values].sort(),
    );
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
