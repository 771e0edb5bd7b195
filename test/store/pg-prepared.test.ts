import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { openDatabase, PG_IDLE_MS } from "../../src/store/db.ts";
import { createStatementNames, preparingClient, type StatementNames } from "../../src/store/pg-prepared.ts";
import { createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";

/** What a connection holds as named prepared statements (Postgres' own view of that session). */
async function preparedOn(client: pg.ClientBase): Promise<Array<{ name: string; statement: string }>> {
  const { rows } = await client.query<{ name: string; statement: string }>(
    "SELECT name, statement FROM pg_prepared_statements ORDER BY name",
  );
  return rows;
}

describe("named prepared statements for repeated statements (pg-prepared)", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("hermes_prep");
  });
  afterAll(() => db?.drop());

  /** One connection (so what it holds can be read back) whose client names statements as `names` says. */
  async function withClient(
    names: StatementNames,
    fn: (client: pg.PoolClient, pool: pg.Pool) => Promise<void>,
  ) {
    const pool = testPool({ connectionString: db.url, max: 1, Client: preparingClient(names) });
    const client = await pool.connect();
    try {
      await fn(client, pool);
    } finally {
      client.release();
      await pool.end();
    }
  }

  it("runs a statement with parameters named from its second run on; the server parses it once", () =>
    withClient(createStatementNames(), async (client) => {
      const text = "SELECT $1::int + 1 AS n";
      expect((await client.query(text, [1])).rows).toEqual([{ n: 2 }]);
      expect(await preparedOn(client)).toEqual([]);
      expect((await client.query(text, [2])).rows).toEqual([{ n: 3 }]);
      const held = await preparedOn(client);
      expect(held).toHaveLength(1);
      expect(held[0]!.name).toMatch(/^hermes_[0-9a-f]{40}$/);
      expect(held[0]!.statement).toBe(text);
      // Later runs reuse it (no second statement), with their own parameters.
      expect((await client.query({ text, values: [41] })).rows).toEqual([{ n: 42 }]);
      expect(await preparedOn(client)).toEqual(held);
    }));

  it("leaves statements without parameters, and callers' own names, as they are", () =>
    withClient(createStatementNames(), async (client) => {
      for (let i = 0; i < 3; i++) await client.query("SELECT 1 AS one");
      for (let i = 0; i < 3; i++) await client.query("SELECT now() AS t", []);
      await client.query({ name: "callers_own", text: "SELECT $1::int AS n", values: [1] });
      await client.query({ name: "callers_own", text: "SELECT $1::int AS n", values: [2] });
      expect((await preparedOn(client)).map((p) => p.name)).toEqual(["callers_own"]);
    }));

  it("names what pool.query runs (pg-pool's callback form) the same way", () =>
    withClient(createStatementNames(), async (client, pool) => {
      client.release();
      const text = "SELECT $1::text || '!' AS s";
      for (const word of ["a", "b", "c"])
        expect((await pool.query(text, [word])).rows).toEqual([{ s: `${word}!` }]);
      const again = await pool.connect();
      try {
        expect((await preparedOn(again)).map((p) => p.statement)).toEqual([text]);
      } finally {
        again.release();
      }
      // withClient releases its client again: take one for it.
      await pool.connect();
    }));

  it("names at most `maxNamed` texts a process; the rest run unnamed and still answer", () =>
    withClient(createStatementNames({ maxNamed: 2 }), async (client) => {
      const texts = ["SELECT $1::int AS a", "SELECT $1::int AS b", "SELECT $1::int AS c"];
      for (let i = 0; i < 3; i++)
        for (const t of texts) expect((await client.query(t, [i])).rows).toHaveLength(1);
      expect((await preparedOn(client)).map((p) => p.statement).sort()).toEqual(texts.slice(0, 2));
    }));

  it("a pooler that loses named statements: this process stops naming at once, says so, and goes on", async () => {
    const faults: Error[] = [];
    const names = createStatementNames({ onPoolerFault: (err) => faults.push(err) });
    await withClient(names, async (client) => {
      const text = "SELECT $1::int * 2 AS n";
      await client.query(text, [1]);
      await client.query(text, [2]);
      // What PgBouncer < 1.21 in transaction mode does: the statement is not on this server session.
      await client.query("DEALLOCATE ALL");
      const err = await client.query(text, [3]).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe("26000");
      expect(faults).toHaveLength(1);
      expect(names.enabled).toBe(false);
      expect((await client.query(text, [4])).rows).toEqual([{ n: 8 }]);
      expect((await client.query("SELECT $1::int AS z", [5])).rows).toEqual([{ z: 5 }]);
      expect(await preparedOn(client)).toEqual([]);
      expect(faults).toHaveLength(1);
    });
  });

  it("a table that changed shape under a named statement: that text fails once, then runs unnamed", () =>
    withClient(createStatementNames(), async (client) => {
      await client.query("CREATE TABLE shape (id int PRIMARY KEY, a text)");
      await client.query("INSERT INTO shape VALUES (1, 'x')");
      const text = "SELECT * FROM shape WHERE id = $1";
      await client.query(text, [1]);
      await client.query(text, [1]);
      await client.query("ALTER TABLE shape ADD COLUMN b int");
      const err = await client.query(text, [1]).catch((e: unknown) => e);
      expect((err as { code?: string }).code).toBe("0A000");
      expect((await client.query(text, [1])).rows).toEqual([{ id: 1, a: "x", b: null }]);
      expect((await client.query(text, [1])).rows).toEqual([{ id: 1, a: "x", b: null }]);
    }));

  it("openDatabase names statements by default, and not with preparedStatements: false", async () => {
    for (const preparedStatements of [true, false]) {
      const handle = await openDatabase({
        databaseUrl: db.url,
        dataDir: "/nonexistent",
        logger: silentLogger(),
        maxConnections: 1,
        preparedStatements,
      });
      if (handle.kind !== "postgres") throw new Error("expected postgres");
      try {
        for (let i = 0; i < 3; i++) await handle.pool.query("SELECT $1::int AS i", [i]);
        const client = await handle.pool.connect();
        try {
          expect((await preparedOn(client)).length).toBe(preparedStatements ? 1 : 0);
        } finally {
          client.release();
        }
      } finally {
        await handle.close();
      }
    }
  });
});

describe("the Postgres pool Hermes opens", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("hermes_pool");
  });
  afterAll(() => db?.drop());

  it("keeps idle connections through a quiet spell (minutes, not pg-pool's 10 s), with TCP keep-alive", async () => {
    const handle = await openDatabase({
      databaseUrl: db.url,
      dataDir: "/nonexistent",
      logger: silentLogger(),
    });
    if (handle.kind !== "postgres") throw new Error("expected postgres");
    try {
      const options = handle.pool.options as pg.PoolConfig & { idleTimeoutMillis?: number };
      expect(options.idleTimeoutMillis).toBe(PG_IDLE_MS);
      expect(PG_IDLE_MS).toBeGreaterThanOrEqual(60_000);
      expect(options.keepAlive).toBe(true);
    } finally {
      await handle.close();
    }
  });
});
