/**
 * The audit log as one hash chain per team: each team's rows link only to each other (genesis per
 * team), so one team's log verifies alone with another's rows interleaved; a row tampered with in
 * one team's chain fails that team only; two teams append at the same time (each its own lock);
 * checkpoints are per chain.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LEGACY_TENANT } from "../../src/core/tenant.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { appendRows } from "../../src/store/audit-append.ts";
import { auditRowHash, GENESIS_HASH } from "../../src/store/audit-chain.ts";
import { verifyWithCheckpoints } from "../../src/store/audit-checks.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { DRIVERS, execSql, openTestStore, type TestStore, testPool } from "../helpers/pg.ts";

const TEAM_A = "T0AAAAAAA";
const TEAM_B = "T0BBBBBBB";

const event = (teamId: string | null, i: number) => ({
  action: "tool.executed" as const,
  tool: "get_ticket",
  userId: `U0${i % 3}`,
  teamId,
  channelId: "C0OPS",
  args: { id: i },
  durationMs: i,
});

/** As a superuser: switch the append-only triggers off, run `statement`, switch them back on. */
async function tamper(store: TestStore, statement: string) {
  await execSql(store.handle.db, "ALTER TABLE audit_log DISABLE TRIGGER USER");
  await execSql(store.handle.db, statement);
  await execSql(store.handle.db, "ALTER TABLE audit_log ENABLE TRIGGER USER");
}

describe.each(DRIVERS)("per-team audit chains on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 8 });
    audit = createAuditLog({ ...store.handle, key: createAuditKey("a-test-audit-key-of-32-characters!!") });
  });
  afterAll(() => store?.cleanup());

  it("interleaved appends of two teams form two chains, each starting at genesis, each verifying alone", async () => {
    // Alternating, and in batches that mix both teams (group commit), and rows without a team.
    const rows = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        audit.append(event(i % 5 === 4 ? null : i % 2 ? TEAM_A : TEAM_B, i)),
      ),
    );
    const byChain = (team: string | null) =>
      rows.filter((r) => r.teamId === team).sort((x, y) => x.id - y.id);
    for (const team of [TEAM_A, TEAM_B, null]) {
      const chain = byChain(team);
      expect(chain[0]?.prevHash).toBe(GENESIS_HASH);
      for (let i = 1; i < chain.length; i++) expect(chain[i]?.prevHash).toBe(chain[i - 1]?.hash);
    }
    expect(await audit.chains()).toEqual([LEGACY_TENANT, TEAM_A, TEAM_B]);
    expect(await audit.verify({ team: TEAM_A })).toEqual({
      ok: true,
      rows: byChain(TEAM_A).length,
      head: byChain(TEAM_A).at(-1)?.hash,
    });
    expect(await audit.verify({ team: TEAM_B })).toMatchObject({ ok: true, rows: byChain(TEAM_B).length });
    expect(await audit.verify({ team: LEGACY_TENANT })).toMatchObject({
      ok: true,
      rows: byChain(null).length,
    });
    const newest = rows.reduce((a, b) => (b.id > a.id ? b : a));
    expect(await audit.verify()).toEqual({ ok: true, rows: 60, head: newest.hash });
    expect(await audit.head(TEAM_B)).toMatchObject({ id: byChain(TEAM_B).at(-1)?.id });
  });

  it("one team's log verifies alone: the other team's rows ignored, or deleted", async () => {
    // Team B's rows gone altogether (a superuser's DELETE): team A's chain is still whole.
    await tamper(store, `CREATE TABLE b_rows AS SELECT * FROM audit_log WHERE team_id = '${TEAM_B}'`);
    await tamper(store, `DELETE FROM audit_log WHERE team_id = '${TEAM_B}'`);
    expect(await audit.verify({ team: TEAM_A })).toMatchObject({ ok: true });
    expect(await audit.verify()).toMatchObject({ ok: true });
    await tamper(store, "INSERT INTO audit_log SELECT * FROM b_rows");
    await execSql(store.handle.db, "DROP TABLE b_rows");
    expect(await audit.verify({ team: TEAM_B })).toMatchObject({ ok: true });
  });

  it("a row tampered with in team A's chain fails team A only", async () => {
    const [target] = await execSql<{ id: number }>(
      store.handle.db,
      `SELECT id::int AS id FROM audit_log WHERE team_id = '${TEAM_A}' ORDER BY id LIMIT 1 OFFSET 3`,
    );
    await tamper(store, `UPDATE audit_log SET user_id = 'U0FORGED' WHERE id = ${target?.id}`);
    expect(await audit.verify({ team: TEAM_A })).toMatchObject({
      ok: false,
      chain: TEAM_A,
      rowId: target?.id,
    });
    expect(await audit.verify({ team: TEAM_B })).toMatchObject({ ok: true });
    expect(await audit.verify({ team: LEGACY_TENANT })).toMatchObject({ ok: true });
    expect(await audit.verify()).toMatchObject({ ok: false, chain: TEAM_A, rowId: target?.id });
    const cli = await verifyWithCheckpoints(audit, undefined, TEAM_B);
    expect(cli.code).toBe(0);
    const all = await verifyWithCheckpoints(audit, undefined);
    expect(all).toMatchObject({ code: 1, out: expect.stringContaining(`(team ${TEAM_A})`) });
    // Put the row back as it was: the rest of this file works on whole chains again.
    const [row] = (await audit.query({ team: TEAM_A, limit: 1000 })).rows.filter((r) => r.id === target?.id);
    const original = { ...row!, userId: `U0${row!.durationMs! % 3}` };
    expect(auditRowHash(original)).toBe(row!.hash);
    await tamper(store, `UPDATE audit_log SET user_id = '${original.userId}' WHERE id = ${target?.id}`);
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("a row cannot be put in another team's chain, nor fork its own", async () => {
    const head = await audit.head(TEAM_A);
    // Chained to team A's head, but claiming team B: the CHECK ties a new row's chain to its team.
    const misplaced = `INSERT INTO audit_log (action, tool, team_id, chain_id, prev_hash, hash)
      VALUES ('tool.requested', 'x', '${TEAM_B}', '${TEAM_A}', '${head?.hash}', '${"f".repeat(64)}')`;
    await expect(execSql(store.handle.db, misplaced)).rejects.toThrow();
    const [first] = await execSql<{ prev_hash: string }>(
      store.handle.db,
      `SELECT prev_hash FROM audit_log WHERE chain_id = '${TEAM_A}' ORDER BY id LIMIT 1`,
    );
    const fork = `INSERT INTO audit_log (action, tool, team_id, chain_id, prev_hash, hash)
      VALUES ('tool.requested', 'x', '${TEAM_A}', '${TEAM_A}', '${first?.prev_hash}', '${"f".repeat(64)}')`;
    await expect(execSql(store.handle.db, fork)).rejects.toThrow();
  });

  it("one append statement writes one team's chain: a batch naming two teams is refused whole", async () => {
    const before = await audit.verify();
    const mixed = [event(TEAM_A, 1), event(TEAM_B, 2)].map((e) => ({
      ...e,
      actorId: null,
      threadTs: null,
      runId: null,
      toolCallId: null,
      approvalId: null,
      argsSha256: null,
      resultSummary: null,
      error: null,
    }));
    await expect(appendRows(store.handle.db, mixed)).rejects.toThrow();
    expect(await audit.verify()).toEqual(before);
  });

  it("checkpoints are per chain: each names its team, and checks against that team's chain", async () => {
    const checkpoints = await audit.checkpoints(new Date("2026-12-01T00:00:00Z"));
    expect(checkpoints.map((c) => c.team)).toEqual([undefined, TEAM_A, TEAM_B]);
    for (const cp of checkpoints) expect(await audit.checkCheckpoint(cp)).toMatchObject({ ok: true });
    const a = checkpoints.find((c) => c.team === TEAM_A)!;
    // The same row claimed for another team's chain fails (the signature covers the team).
    expect(await audit.checkCheckpoint({ ...a, team: TEAM_B })).toMatchObject({ ok: false });
    expect(await audit.checkpoint(undefined, TEAM_B)).toMatchObject({ team: TEAM_B });
    const ok = await verifyWithCheckpoints(
      audit,
      checkpoints.map((value, i) => ({ where: `#${i}`, value })),
    );
    expect(ok).toMatchObject({ code: 0, out: expect.stringContaining("3 checkpoints ok") });
    expect(ok.out).toContain(`team ${TEAM_A}:`);
  });
});

describe("per-team audit chains on postgres: concurrency", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("postgres", { maxConnections: 8 });
  });
  afterAll(() => store?.cleanup());

  it("team B appends while team A's chain lock is held; team A's append waits for it", async () => {
    const audit = createAuditLog(store.handle);
    await audit.append(event(TEAM_A, 0));
    const holder = new pg.Client({ connectionString: store.url });
    await holder.connect();
    const pool = testPool({ connectionString: store.url, max: 4 });
    try {
      await holder.query(`BEGIN; SELECT pg_advisory_xact_lock(hermes_audit_lock_key('${TEAM_A}'))`);
      const writer = createAuditLog({ db: store.handle.db, pool });
      let aDone = false;
      const a = writer.append(event(TEAM_A, 1)).then((row) => {
        aDone = true;
        return row;
      });
      // Team B's chain has its own lock: its appends go through while team A's is held.
      const b = await Promise.all([writer.append(event(TEAM_B, 2)), writer.append(event(TEAM_B, 3))]);
      expect(b.map((r) => r.teamId)).toEqual([TEAM_B, TEAM_B]);
      expect(aDone).toBe(false);
      await holder.query("COMMIT");
      expect((await a).teamId).toBe(TEAM_A);
      expect(await audit.verify()).toMatchObject({ ok: true, rows: 4 });
    } finally {
      await holder.end();
      await pool.end();
    }
  });

  it("many writers of two teams at once: both chains whole, no gaps", async () => {
    const pool = testPool({ connectionString: store.url, max: 8 });
    try {
      const writers = Array.from({ length: 8 }, () => createAuditLog({ db: store.handle.db, pool }));
      await Promise.all(
        writers.map((w, k) =>
          Promise.all(Array.from({ length: 25 }, (_, i) => w.append(event(k % 2 ? TEAM_A : TEAM_B, i)))),
        ),
      );
      const a = await createAuditLog(store.handle).verify({ team: TEAM_A });
      const b = await createAuditLog(store.handle).verify({ team: TEAM_B });
      expect(a).toMatchObject({ ok: true, rows: 100 + 2 });
      expect(b).toMatchObject({ ok: true, rows: 100 + 2 });
    } finally {
      await pool.end();
    }
  });
});
