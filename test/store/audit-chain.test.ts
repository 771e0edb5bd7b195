import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argsSha256 } from "../../src/core/args-hash.ts";
import { isHermesError } from "../../src/core/errors.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { AUDIT_LOCK_KEY } from "../../src/store/audit-append.ts";
import { auditRowHash, GENESIS_HASH } from "../../src/store/audit-chain.ts";
import { users } from "../../src/store/schema.ts";
import { PROCESS_TEST_TIMEOUT_MS, runProcess } from "../helpers/child-process.ts";
import { DRIVERS, dbErrorText, execSql, openTestStore, type TestStore, testPool } from "../helpers/pg.ts";

const REPO = new URL("../..", import.meta.url).pathname;

/** The advisory lock of team T01's chain (the events below are T01's). */
const T01_LOCK = "hermes_audit_lock_key('T01')";

/** Tests that run the CLI: its start is slow on a busy machine; the timeout only bounds a hang. */
const CLI_TEST = { timeout: PROCESS_TEST_TIMEOUT_MS };

/**
 * Runs `npm run audit -- <args>` as a separate process (group), as an operator would; it is killed
 * afterwards whatever happened. Its start takes seconds idle and far longer on a busy machine:
 * tests that call it get PROCESS_TEST_TIMEOUT_MS.
 */
async function auditCli(args: string[], env: Record<string, string>) {
  const r = await runProcess(process.execPath, ["src/cli/audit.ts", ...args], {
    cwd: REPO,
    env: { ...process.env, DATABASE_URL: "", ...env },
  });
  return { code: r.code ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** As a superuser: switch the append-only triggers off, run `statement`, switch them back on. */
async function tamper(store: TestStore, statement: string) {
  await execSql(store.handle.db, "ALTER TABLE audit_log DISABLE TRIGGER USER");
  await execSql(store.handle.db, statement);
  await execSql(store.handle.db, "ALTER TABLE audit_log ENABLE TRIGGER USER");
}

const args = { channel: "C01", text: "hello 你好" };
const event = (i: number) => ({
  action: "tool.requested" as const,
  tool: "send_message",
  userId: `U0${i % 3}`,
  teamId: "T01",
  channelId: "C01",
  threadTs: "1700000000.000100",
  runId: `run_${i}`,
  toolCallId: `call_${i}`,
  args: { ...args, n: i },
  argsSha256: argsSha256("send_message", { ...args, n: i }),
  durationMs: i,
});

describe.each(DRIVERS)("audit hash chain on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 8 });
    audit = createAuditLog(store.handle);
  });
  afterAll(() => store?.cleanup());

  it("an empty log verifies, with the genesis hash as head", async () => {
    expect(await audit.verify()).toEqual({ ok: true, rows: 0, head: GENESIS_HASH });
    expect(await audit.head()).toBeNull();
  });

  it("200 concurrent appends (8 connections on Postgres) form one chain with no gaps", async () => {
    // Eight log objects, as eight replicas: each writes its own appends in batches on one connection,
    // and the eight take turns on the chain's lock.
    const logs = Array.from({ length: 8 }, () => createAuditLog(store.handle));
    const rows = await Promise.all(Array.from({ length: 200 }, (_, i) => logs[i % 8]!.append(event(i))));
    if (store.handle.kind === "postgres") expect(store.handle.pool.totalCount).toBe(8);
    const sorted = [...rows].sort((a, b) => a.id - b.id);
    expect(sorted.map((r) => r.id)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(sorted[0]?.prevHash).toBe(GENESIS_HASH);
    sorted.forEach((row, i) => {
      if (i > 0) expect(row.prevHash).toBe(sorted[i - 1]?.hash);
    });
    // Timestamps follow the chain order too (drawn under the lock).
    expect(sorted.map((r) => r.createdAt)).toEqual(sorted.map((r) => r.createdAt).sort());
    const head = sorted.at(-1);
    expect(await audit.verify()).toEqual({ ok: true, rows: 200, head: head?.hash });
    expect(await audit.head()).toEqual({ id: 200, hash: head?.hash, createdAt: head?.createdAt });
  });

  it("stores exactly what it hashed: args, Unicode, NUL, null fields", async () => {
    const row = await audit.append({
      action: "tool.failed",
      tool: "create_ticket",
      args: { b: [1, 2.5, { z: null, a: "é\u0000" }], a: 1e21, "": true },
      error: "timeout\u0000",
    });
    expect(row.args).toEqual({ b: [1, 2.5, { z: null, a: "é\uFFFD" }], a: 1e21, "": true });
    expect(row.error).toBe("timeout\uFFFD");
    const [stored] = (await audit.query({ limit: 1 })).rows;
    expect(stored).toEqual(row);
    expect((await audit.verify()).ok).toBe(true);
  });

  it("commits the audit row with the caller's transaction, or not at all", async () => {
    const before = await audit.head();
    await expect(
      store.handle.db.transaction(async (tx) => {
        await tx.insert(users).values({ id: "U0ROLLBACK", level: "admin" });
        await audit.append({ action: "tool.approved", tool: "delete_ticket", actorId: "U0ROLLBACK" }, tx);
        throw new Error("decision failed after the audit row");
      }),
    ).rejects.toThrow("decision failed");
    expect(await audit.head()).toEqual(before);

    const row = await store.handle.db.transaction(async (tx) => {
      await tx.insert(users).values({ id: "U0COMMIT", level: "admin" });
      return audit.append({ action: "tool.approved", tool: "delete_ticket", actorId: "U0COMMIT" }, tx);
    });
    expect((await audit.head())?.id).toBe(row.id);
    // The rolled-back row used an id; the chain links over the gap in ids.
    expect(row.id).toBe((before?.id ?? 0) + 2);
    expect(row.prevHash).toBe(before?.hash);
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("refuses to append inside a REPEATABLE READ transaction (its snapshot would miss the head)", async () => {
    const err = await store.handle.db
      .transaction((tx) => audit.append({ action: "tool.requested", tool: "x" }, tx), {
        isolationLevel: "repeatable read",
      })
      .catch((e: unknown) => e);
    expect(isHermesError(err, "storage_unavailable")).toBe(true);
  });

  it("rejects a second row claiming the same predecessor (the chain cannot fork)", async () => {
    const [latest] = (await audit.query({ limit: 1 })).rows;
    // A predecessor is unique within its chain (the team's): the fork claims one in the same chain.
    const team = latest?.teamId ?? null;
    const fork = `INSERT INTO audit_log (action, tool, team_id, chain_id, prev_hash, hash)
      VALUES ('tool.requested', 'x', ${team === null ? "NULL" : `'${team}'`}, '${team ?? ""}',
        '${latest?.prevHash}', '${"f".repeat(64)}')`;
    expect(await dbErrorText(execSql(store.handle.db, fork))).toContain("audit_log_prev_hash_unique");
  });

  it("an invalid event is refused before anything is written", async () => {
    const err = await audit
      .append({ action: "tool.hacked" as "tool.failed", tool: "" })
      .catch((e: unknown) => e);
    expect(isHermesError(err, "bad_request")).toBe(true);
  });

  it("finds a row changed behind the triggers' back, and the CLI names it", CLI_TEST, async () => {
    const target = 57;
    await tamper(store, `UPDATE audit_log SET args = '{"channel":"C99"}' WHERE id = ${target}`);
    expect(await audit.verify()).toMatchObject({ ok: false, rowId: target });

    if (store.handle.kind === "pglite") {
      // PGlite's data directory admits one process at a time: close it so the CLI can open it.
      await store.handle.close();
      const cli = await auditCli(["verify"], { HERMES_DATA_DIR: store.dataDir ?? "" });
      expect(cli.code).toBe(1);
      expect(cli.stderr).toContain(`BROKEN at row ${target}`);
      return;
    }
    const cli = await auditCli(["verify"], { DATABASE_URL: store.url ?? "" });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(`BROKEN at row ${target}`);
  });
});

describe("postgres: other tampering, and the CLI", () => {
  let store: TestStore;
  let audit: AuditLog;
  beforeAll(async () => {
    store = await openTestStore("postgres");
    audit = createAuditLog(store.handle);
    for (let i = 0; i < 10; i++) await audit.append(event(i));
  });
  afterAll(() => store?.cleanup());

  it("a row rewritten with a correctly recomputed hash: its successor is named", async () => {
    const [row8] = (await audit.query({ limit: 3 })).rows.filter((r) => r.id === 8);
    if (!row8) throw new Error("row 8 missing");
    const forged = { ...row8, userId: "U0FORGED" };
    const hash = auditRowHash(forged);
    await tamper(store, `UPDATE audit_log SET user_id = 'U0FORGED', hash = '${hash}' WHERE id = 8`);
    expect(await audit.verify()).toMatchObject({
      ok: false,
      rowId: 9,
      reason: expect.stringContaining("row 8"),
    });
  });

  it("a removed row: the row after it is named (the earliest break wins)", CLI_TEST, async () => {
    await tamper(store, "DELETE FROM audit_log WHERE id = 4");
    expect(await audit.verify()).toMatchObject({
      ok: false,
      rowId: 5,
      reason: expect.stringContaining("row 3"),
    });
    const cli = await auditCli(["verify"], { DATABASE_URL: store.url ?? "" });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain("BROKEN at row 5");
  });

  it("the CLI prints the head hash to anchor elsewhere", CLI_TEST, async () => {
    const head = await audit.head();
    const cli = await auditCli(["head"], { DATABASE_URL: store.url ?? "" });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(head?.hash);
  });

  it("the CLI queries with filters, as JSON with a cursor, and as CSV", CLI_TEST, async () => {
    const env = { DATABASE_URL: store.url ?? "" };
    const json = await auditCli(
      ["query", "--user", "U00", "--since", "1h", "--limit", "2", "--format", "json"],
      env,
    );
    expect(json).toMatchObject({ code: 0, stderr: "" });
    const page = JSON.parse(json.stdout) as { rows: { id: number; userId: string }[]; nextCursor?: string };
    // U00 made rows 1, 4, 7 and 10; row 4 was removed by the tampering test above.
    expect(page.rows.map((r) => [r.id, r.userId])).toEqual([
      [10, "U00"],
      [7, "U00"],
    ]);
    const next = await auditCli(
      ["query", "--user", "U00", "--cursor", page.nextCursor ?? "", "--format", "csv"],
      env,
    );
    expect(next).toMatchObject({ code: 0 });
    const ids = next.stdout
      .trim()
      .split("\r\n")
      .slice(1)
      .map((line) => Number(line.split(",")[0]));
    expect(ids).toEqual([1]);
    const bad = await auditCli(["query", "--action", "tool.nope"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown --action tool.nope");
  });

  it("the CLI's CSV defuses cells that start like a spreadsheet formula", CLI_TEST, async () => {
    await audit.append({ ...event(99), userId: "U0FORMULA", resultSummary: "=cmd|' /C calc'!A0" });
    const csv = await auditCli(["query", "--user", "U0FORMULA", "--format", "csv"], {
      DATABASE_URL: store.url ?? "",
    });
    expect(csv).toMatchObject({ code: 0 });
    expect(csv.stdout).toContain(",'=cmd|' /C calc'!A0,");
  });
});

describe("postgres: an append in a transaction of its own", () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await openTestStore("postgres");
  });
  afterAll(() => store?.cleanup());

  /** A pool on the test database whose clients count the queries sent. */
  function countingPool(options: pg.PoolConfig = {}) {
    const pool = testPool({ connectionString: store.url, max: 2, ...options });
    const sent: string[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        sent.push(String(typeof args[0] === "string" ? args[0] : (args[0] as { text: string }).text));
        return query(...args);
      };
    });
    return { pool, sent };
  }

  /** Runs `fn` with an audit log on a counting pool (ended afterwards). */
  async function withCountingAudit(
    fn: (audit: AuditLog, sent: string[], pool: pg.Pool) => Promise<void>,
    options: pg.PoolConfig = {},
  ) {
    const { pool, sent } = countingPool(options);
    try {
      await fn(createAuditLog({ db: store.handle.db, pool }), sent, pool);
    } finally {
      await pool.end();
    }
  }

  /** The chains' locks are free: a connection back in the pool holds no transaction. */
  async function expectLockFree(pool: pg.Pool) {
    const other = await pool.connect();
    try {
      const { rows } = await other.query<{ free: boolean }>(
        `SELECT pg_try_advisory_lock(${AUDIT_LOCK_KEY}) AND pg_try_advisory_lock(${T01_LOCK}) AS free,
          pg_advisory_unlock(${AUDIT_LOCK_KEY}), pg_advisory_unlock(${T01_LOCK})`,
      );
      expect(rows[0]?.free).toBe(true);
    } finally {
      other.release();
    }
  }

  /** No connection of this database sits in a transaction (none was left open by a failed append). */
  async function expectNoOpenTransaction(pool: pg.Pool) {
    const { rows } = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
    );
    expect(Number(rows[0]?.n)).toBe(0);
  }

  it("takes one round trip: the chain's function, its own transaction, with the rows as one parameter", () =>
    withCountingAudit(async (audit, sent) => {
      const first = await audit.append(event(1));
      expect(sent).toEqual([
        "SELECT row_id, row_created_at, row_prev_hash, row_hash FROM hermes_audit_append($1::jsonb)",
      ]);
      const second = await audit.append(event(2));
      expect(second.prevHash).toBe(first.hash);
      expect(await audit.verify()).toMatchObject({ ok: true, head: second.hash });
    }));

  it("rows travel as one parameter: quotes, backslashes, SQL and every kind of character come back exactly", () =>
    withCountingAudit(async (audit, sent) => {
      const hostile = {
        text: "it's \\'; DROP TABLE audit_log; -- $1 $$ E'\\x00' \" 😀 你好 \u2028 \t\n\r",
        path: "C:\\Users\\'quoted'\\",
        nested: { "key'with\\": ["'", "\\", "''", "\\'", "\u0001\u001f"] },
      };
      const row = await audit.append({
        ...event(3),
        userId: "U0HOSTILE",
        args: hostile,
        argsSha256: argsSha256("send_message", hostile),
        resultSummary: "done'); DELETE FROM audit_log; --\\",
        error: "a\\'b",
      });
      // Nothing of the row is in the statement's text.
      expect(sent.join("\n")).not.toContain("DROP TABLE");
      const [stored] = await execSql<{ args: unknown; result_summary: string; error: string; hash: string }>(
        store.handle.db,
        `SELECT args, result_summary, error, hash FROM audit_log WHERE id = ${row.id}`,
      );
      expect(stored).toEqual({
        args: hostile,
        result_summary: "done'); DELETE FROM audit_log; --\\",
        error: "a\\'b",
        hash: row.hash,
      });
      expect(await audit.verify()).toMatchObject({ ok: true, head: row.hash });
    }));

  it("an insert that fails is not committed: the statement's transaction is rolled back and the chain's lock is free", () =>
    withCountingAudit(async (audit, sent, pool) => {
      const before = await audit.head();
      // A duration no integer column takes: the insert fails on the server, after the lock.
      const err = await audit.append({ ...event(4), durationMs: 1e12 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      // One statement, its own transaction: nothing of it is left open to roll back.
      expect(sent).toHaveLength(1);
      await expectNoOpenTransaction(pool);
      expect(await audit.head()).toEqual(before);
      await expectLockFree(pool);
      expect(await audit.verify()).toMatchObject({ ok: true });
    }));

  it("a server whose transactions default to REPEATABLE READ is refused, rolled back, nothing written", async () => {
    const audit = createAuditLog(store.handle);
    const before = await audit.head();
    const { pool, sent } = countingPool({ options: "-c default_transaction_isolation=repeatable\\ read" });
    try {
      const err = await createAuditLog({ db: store.handle.db, pool })
        .append(event(3))
        .catch((e: unknown) => e);
      expect(isHermesError(err, "storage_unavailable")).toBe(true);
      expect(sent).toHaveLength(1);
      // The connection went back to the pool outside any transaction: the chain's lock is free.
      await expectLockFree(pool);
      await expectNoOpenTransaction(pool);
      expect(await audit.head()).toEqual(before);
    } finally {
      await pool.end();
    }
  });

  it("a lock wait past the statement timeout fails the append, rolls back, and the next append chains on", async () => {
    const audit = createAuditLog(store.handle);
    const before = await audit.head();
    const holder = new pg.Client({ connectionString: store.url });
    await holder.connect();
    const { pool, sent } = countingPool({ statement_timeout: 300, max: 1 });
    try {
      // The lock of the chain event(4) goes to: its team's.
      await holder.query(`BEGIN; SELECT pg_advisory_xact_lock(${T01_LOCK})`);
      const blocked = createAuditLog({ db: store.handle.db, pool });
      const err = await blocked.append(event(4)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      expect(sent).toHaveLength(1);
      await holder.query("COMMIT");
      await expectNoOpenTransaction(pool);
      // The same (only) connection is reused, and the chain goes on from the old head.
      const row = await blocked.append(event(5));
      expect(row.prevHash).toBe(before?.hash);
      expect(await audit.verify()).toMatchObject({ ok: true, head: row.hash });
    } finally {
      await holder.end();
      await pool.end();
    }
  });
});
