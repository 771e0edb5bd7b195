import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import {
  countsBetween,
  type PgStatementCounter,
  startPgStatementCounter,
} from "../../bench/lib/pg-statement-counter.ts";
import { PG_ADMIN_URL } from "../helpers/pg.ts";

/**
 * The proxy the benchmark puts between Hermes and Postgres: a real pg client through it gets its
 * answers, and every statement it sends is counted once, with its text.
 */
let counter: PgStatementCounter | undefined;
let client: pg.Client | undefined;
afterEach(async () => {
  await client?.end().catch(() => undefined);
  await counter?.close();
  client = undefined;
  counter = undefined;
});

describe("startPgStatementCounter", () => {
  it("passes a session through and counts its simple, unnamed and named statements", async () => {
    counter = await startPgStatementCounter(PG_ADMIN_URL);
    client = new pg.Client({ connectionString: counter.proxiedUrl(PG_ADMIN_URL) });
    await client.connect();
    const before = counter.snapshot();
    await client.query("BEGIN");
    const unnamed = await client.query("select $1::int + 1 as n", [41]);
    for (let i = 0; i < 3; i++)
      await client.query({ name: "bench_named", text: "select $1::text as t", values: [`v${i}`] });
    await client.query("COMMIT");
    const d = countsBetween(before, counter.snapshot());

    expect(unnamed.rows).toEqual([{ n: 42 }]);
    expect(d.total).toBe(6);
    expect(d.simple).toBe(2);
    expect(d.extended).toBe(4);
    expect(Object.fromEntries(d.byText)).toEqual({
      BEGIN: 1,
      "select $1::int + 1 as n": 1,
      "select $1::text as t": 3,
      COMMIT: 1,
    });
    expect(d.opaqueConnections).toBe(0);
  });
});
