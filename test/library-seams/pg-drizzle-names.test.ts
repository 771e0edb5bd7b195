import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drizzleNodePg, integer, pgTable, sql } from "../../src/store/drizzle.ts";
import { createStatementNames, preparingClient } from "../../src/store/pg-prepared.ts";
import { prepared } from "../../src/store/prepared.ts";
import { createTestDatabase, type TestDatabase, testPool } from "../helpers/pg.ts";
import { installedVersion } from "./installed-version.ts";

/**
 * What Hermes relies on in pg and drizzle for named statements (`store/pg-prepared.ts`,
 * `store/prepared.ts`), against the installed versions: a version bump that changes either fails here.
 */

const numbers = pgTable("seam_numbers", { n: integer("n").notNull() });

async function preparedNames(client: pg.ClientBase): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT name FROM pg_prepared_statements ORDER BY name",
  );
  return rows.map((r) => r.name);
}

describe("pg and drizzle as Hermes names statements", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("hermes_seam");
    const pool = testPool({ connectionString: db.url, max: 1 });
    await pool.query("CREATE TABLE seam_numbers (n int NOT NULL)");
    await pool.query("INSERT INTO seam_numbers VALUES (1), (2), (3)");
    await pool.end();
  });
  afterAll(() => db?.drop());

  it("is checked against pg 8.23.1 and drizzle-orm 0.45.4", () => {
    expect(installedVersion("pg")).toBe("8.23.1");
    expect(installedVersion("drizzle-orm")).toBe("0.45.4");
  });

  it('pg runs a query config named "" as the unnamed statement, and a named one once per connection', async () => {
    const pool = testPool({ connectionString: db.url, max: 1 });
    const client = await pool.connect();
    try {
      for (const v of [1, 2]) await client.query({ name: "", text: "SELECT $1::int AS v", values: [v] });
      expect(await preparedNames(client)).toEqual([]);
      for (const v of [1, 2])
        expect((await client.query({ name: "mine", text: "SELECT $1::int AS v", values: [v] })).rows).toEqual(
          [{ v }],
        );
      expect(await preparedNames(client)).toEqual(["mine"]);
    } finally {
      client.release();
      await pool.end();
    }
  });

  it("drizzle's prepare hands its name to pg as the config's name: prepared() is unnamed until the pool names it", async () => {
    for (const naming of [false, true]) {
      const pool = testPool({
        connectionString: db.url,
        max: 1,
        ...(naming ? { Client: preparingClient(createStatementNames()) } : {}),
      });
      try {
        const orm = drizzleNodePg({ client: pool });
        const atLeast = prepared(() =>
          orm
            .select({ n: numbers.n })
            .from(numbers)
            .where(sql`${numbers.n} >= ${sql.placeholder("min")}`),
        );
        for (const min of [1, 2, 3]) expect(await atLeast().execute({ min })).toHaveLength(4 - min);
        const client = await pool.connect();
        try {
          const names = await preparedNames(client);
          if (naming) expect(names).toEqual([expect.stringMatching(/^hermes_[0-9a-f]{40}$/)]);
          else expect(names).toEqual([]);
        } finally {
          client.release();
        }
      } finally {
        await pool.end();
      }
    }
  });
});
