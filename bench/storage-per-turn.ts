/**
 * `node bench/storage-per-turn.ts [--turns N]`: what a turn leaves in Postgres, for sizing a
 * database that serves many workspaces. An `npm start` process on Postgres and Redis runs N turns that
 * open a ticket (one tool call, two model steps) and N that answer at once, one at a time; the rows
 * and bytes (`pg_total_relation_size`: table, indexes and TOAST) each table gained are divided by the
 * turns. Prints one line per table and the totals.
 */
import pg from "pg";
import { createBenchStack, within } from "./lib/bench-stack.ts";
import { fmt } from "./lib/stats.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const TURNS = Number(arg("--turns") ?? 200);

interface TableFigures {
  rows: number;
  bytes: number;
}

async function tables(pool: pg.Pool): Promise<Map<string, TableFigures>> {
  // Fresh statistics: row counts from count(*), sizes after the writes are on disk.
  await pool.query("VACUUM ANALYZE");
  const names = (
    await pool.query<{ name: string }>(
      "select tablename as name from pg_tables where schemaname = 'public' order by tablename",
    )
  ).rows.map((r) => r.name);
  const out = new Map<string, TableFigures>();
  for (const name of names) {
    const { rows } = await pool.query<{ rows: string; bytes: string }>(
      `select (select count(*) from "${name}") as rows, pg_total_relation_size('"${name}"') as bytes`,
    );
    out.set(name, { rows: Number(rows[0]!.rows), bytes: Number(rows[0]!.bytes) });
  }
  return out;
}

const stack = await createBenchStack();
const pool = new pg.Pool({ connectionString: stack.db.url, max: 1 });
try {
  const hermes = await stack.start("all");
  const driver = stack.driver(hermes);
  const turn = async (kind: "tool" | "plain") => {
    const sent = await driver.send(kind);
    await within(60_000, `answer to ${sent.token}`, sent.done);
  };
  for (let i = 0; i < 5; i++) await turn("tool");
  const before = await tables(pool);
  for (let i = 0; i < TURNS; i++) {
    await turn("tool");
    await turn("plain");
  }
  // The writes a turn makes after its answer (behind the run) land within moments.
  await new Promise((r) => setTimeout(r, 2000));
  const after = await tables(pool);
  await stack.stopProcess(hermes);
  const turns = 2 * TURNS;
  let rows = 0;
  let bytes = 0;
  console.log(`${turns} turns (${TURNS} with a tool call, ${TURNS} answered at once)`);
  console.log("table                      rows/turn   bytes/turn");
  for (const [name, a] of after) {
    const b = before.get(name) ?? { rows: 0, bytes: 0 };
    const dr = (a.rows - b.rows) / turns;
    const db = (a.bytes - b.bytes) / turns;
    if (dr === 0 && db <= 0) continue;
    rows += dr;
    bytes += Math.max(0, db);
    console.log(`${name.padEnd(26)} ${fmt(dr, 2).padStart(9)} ${fmt(db, 0).padStart(12)}`);
  }
  console.log(`storage rows_per_turn=${fmt(rows, 1)} bytes_per_turn=${fmt(bytes, 0)}`);
} finally {
  await pool.end();
  await stack.close();
}
