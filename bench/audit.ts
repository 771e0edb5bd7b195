/**
 * `npm run bench:audit`: hash-chained audit appends per second from 1, 4 and 16 concurrent writers
 * (each its own pooled connection) on the local Postgres, in a fresh database created and dropped
 * here; then the same from one writer on embedded PGlite, and how fast `verify` walks the chain.
 * DATABASE_URL picks the server (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { silentLogger } from "../src/logger.ts";
import { type AuditEvent, createAuditLog } from "../src/store/audit.ts";
import { canonicalSha256 } from "../src/store/canonical-json.ts";
import { type DatabaseHandle, openDatabase } from "../src/store/db.ts";
import { migrate } from "../src/store/migrate.ts";

const SECONDS_PER_RUN = 3;
const WRITERS = [1, 4, 16];

const args = { channel: "C0123456", text: "Deploy finished: 42 services updated, 0 failed." };
const event = (i: number): AuditEvent => ({
  action: i % 2 ? "tool.executed" : "tool.requested",
  tool: "send_message",
  userId: "U0BENCH",
  teamId: "T0BENCH",
  channelId: "C0123456",
  threadTs: "1700000000.000100",
  runId: `run_${i >> 3}`,
  toolCallId: `call_${i}`,
  args,
  argsSha256: canonicalSha256(args),
  resultSummary: i % 2 ? "sent" : null,
  durationMs: 12,
});

interface Result {
  label: string;
  rows: number;
  perSecond: number;
  p50: number;
  p99: number;
}

async function measure(handle: DatabaseHandle, label: string, writers: number): Promise<Result> {
  const audit = createAuditLog(handle);
  const latencies: number[] = [];
  let n = 0;
  const start = performance.now();
  const end = start + SECONDS_PER_RUN * 1000;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await audit.append(event(n++));
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    label,
    rows: latencies.length,
    perSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
  };
}

async function verifyRate(handle: DatabaseHandle): Promise<string> {
  const t = performance.now();
  const result = await createAuditLog(handle).verify();
  if (!result.ok) throw new Error(`chain broken at row ${result.rowId}: ${result.reason}`);
  const seconds = (performance.now() - t) / 1000;
  return `verify: ${result.rows} rows in ${seconds.toFixed(2)} s (${Math.round(result.rows / seconds)} rows/s), chain ok`;
}

async function adminQuery(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function main() {
  const server = loadConfig().env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `hermes_bench_${randomBytes(4).toString("hex")}`;
  const url = new URL(server);
  url.pathname = `/${name}`;
  const logger = silentLogger();
  const results: Result[] = [];
  const notes: string[] = [];

  await adminQuery(server, `CREATE DATABASE ${name}`);
  try {
    const handle = await openDatabase({
      databaseUrl: url.toString(),
      dataDir: "",
      logger,
      maxConnections: 16,
    });
    try {
      await migrate(handle);
      for (const writers of WRITERS) {
        results.push(await measure(handle, `postgres, ${writers} writer${writers > 1 ? "s" : ""}`, writers));
      }
      notes.push(`postgres ${await verifyRate(handle)}`);
    } finally {
      await handle.close();
    }
  } finally {
    await adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }

  const dataDir = await mkdtemp(join(tmpdir(), "hermes-bench-"));
  try {
    const handle = await openDatabase({ dataDir, logger });
    try {
      await migrate(handle);
      results.push(await measure(handle, "pglite, 1 writer", 1));
      notes.push(`pglite ${await verifyRate(handle)}`);
    } finally {
      await handle.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }

  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(20) : c.padStart(10))).join("");
  console.log(`audit appends with the hash chain, ${SECONDS_PER_RUN} s per run\n`);
  console.log(row(["", "rows", "rows/s", "p50 ms", "p99 ms"]));
  for (const r of results) {
    console.log(row([r.label, String(r.rows), r.perSecond.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2)]));
  }
  console.log(`\n${notes.join("\n")}`);
}

await main();
