/**
 * Audit throughput: hash-chained audit appends per second from 1, 4 and 16 concurrent writers (each
 * its own pooled connection) on the local Postgres, in a fresh database created and dropped here;
 * then the same from one writer on embedded PGlite, and how fast `verify` walks the chain. Then
 * approval decide latency (the atomic pending → approved UPDATE plus its audit row): distinct
 * approvals decided by 1, 4 and 16 concurrent clients, and the contended case where 16 clicks land
 * on one approval at once (one winner, the rest `already_decided`).
 * DATABASE_URL picks the server (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { loadConfig } from "../src/config.ts";
import { argsSha256 } from "../src/core/args-hash.ts";
import { silentLogger } from "../src/core/logger.ts";
import { type ApprovalStore, createApprovalStore, type DecideResult } from "../src/policy/approval-store.ts";
import { type AuditEvent, createAuditLog } from "../src/store/audit.ts";
import { type DatabaseHandle, openDatabase } from "../src/store/db.ts";
import { migrate } from "../src/store/migrate.ts";
import { cleanUpOnInterrupt } from "./lib/bench-stack.ts";

export const WRITERS = [1, 4, 16];
const DECIDERS = [1, 4, 16];
const CONTENDED_CLICKS = 16;

/** How long each append run lasts and how many approvals each decide run takes. */
interface Sizes {
  secondsPerRun: number;
  approvalsPerRun: number;
  contendedApprovals: number;
}

export const FULL: Sizes = { secondsPerRun: 3, approvalsPerRun: 400, contendedApprovals: 50 };
export const QUICK: Sizes = { secondsPerRun: 1, approvalsPerRun: 100, contendedApprovals: 15 };

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
  argsSha256: argsSha256("send_message", args),
  resultSummary: i % 2 ? "sent" : null,
  durationMs: 12,
});

export interface Result {
  label: string;
  rows: number;
  perSecond: number;
  p50: number;
  p99: number;
}

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function measure(handle: DatabaseHandle, label: string, writers: number, z: Sizes): Promise<Result> {
  const audit = createAuditLog(handle);
  const latencies: number[] = [];
  let n = 0;
  const start = performance.now();
  const end = start + z.secondsPerRun * 1000;
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await audit.append(event(n++));
        latencies.push(performance.now() - t);
      }
    }),
  );
  return summarize(label, latencies, performance.now() - start);
}

function summarize(label: string, latencies: number[], elapsedMs: number): Result {
  latencies.sort((a, b) => a - b);
  return {
    label,
    rows: latencies.length,
    perSecond: latencies.length / (elapsedMs / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

const approvalInput = (i: number) => ({
  tool: "delete_ticket",
  args: { id: i, reason: "duplicate of #12" },
  requesterId: "U0BENCH",
  sessionKey: "T0BENCH:C0123456:1700000000.000100",
  runId: `run_${i}`,
  toolCallId: `call_${i}`,
  teamId: "T0BENCH",
  channelId: "C0123456",
  threadTs: "1700000000.000100",
});

const click = (approvals: ApprovalStore, approvalId: string, i: number) =>
  approvals.decide({
    approvalId,
    deciderId: i % 2 ? "U0BENCH" : "U0ADMIN",
    deciderLevel: i % 2 ? "user" : "admin",
    decision: "approved",
  });

/**
 * Distinct approvals, each decided once, by `clients` concurrent deciders. First `clients` decides at
 * once, not counted: the appends before this went through group commit on one connection, so without
 * them the first click of each client waited for Postgres to start a server process and for its named
 * statements to be parsed (the first 16 clicks 320–390 ms here, docs/performance.md). That is a
 * pool's first use after quiet (`PG_IDLE_MS`), measured by `measureColdDecides`, not a click's cost.
 */
async function measureDecide(
  handle: DatabaseHandle,
  label: string,
  clients: number,
  z: Sizes,
): Promise<Result> {
  const approvals = createApprovalStore({ db: handle.db, audit: createAuditLog(handle), ttlSeconds: 900 });
  await decideAtOnce(approvals, clients, z.approvalsPerRun);
  const ids: string[] = [];
  for (let i = 0; i < z.approvalsPerRun; i++) ids.push((await approvals.create(approvalInput(i))).id);
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let id = ids[next++]; id !== undefined; id = ids[next++])
        latencies.push(await timedDecide(approvals, id, next));
    }),
  );
  return summarize(label, latencies, performance.now() - start);
}

/** One click on a pending approval that must decide it; its ms. */
async function timedDecide(approvals: ApprovalStore, id: string, i: number): Promise<number> {
  const t = performance.now();
  const result = await click(approvals, id, i);
  const ms = performance.now() - t;
  if (result.kind !== "decided") throw new Error(`expected decided, got ${result.kind}`);
  return ms;
}

/** `n` distinct approvals decided at once; each click's ms. */
async function decideAtOnce(approvals: ApprovalStore, n: number, firstInput: number): Promise<number[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await approvals.create(approvalInput(firstInput + i))).id);
  return Promise.all(ids.map((id, i) => timedDecide(approvals, id, i)));
}

/**
 * `clients` clicks at once on a pool that has not opened that many connections: a burst of clicks
 * after the pool's connections idled out. Run first, on a pool whose appends used one connection.
 */
async function measureColdDecides(handle: DatabaseHandle, label: string, clients: number): Promise<Result> {
  const approvals = createApprovalStore({ db: handle.db, audit: createAuditLog(handle), ttlSeconds: 900 });
  const start = performance.now();
  const latencies = await decideAtOnce(approvals, clients, 1_000_000);
  return summarize(label, latencies, performance.now() - start);
}

/** `CONTENDED_CLICKS` simultaneous clicks on each approval in turn; every click's latency counts. */
async function measureContended(handle: DatabaseHandle, label: string, z: Sizes): Promise<Result> {
  const approvals = createApprovalStore({ db: handle.db, audit: createAuditLog(handle), ttlSeconds: 900 });
  const latencies: number[] = [];
  let elapsed = 0;
  for (let a = 0; a < z.contendedApprovals; a++) {
    const { id } = await approvals.create(approvalInput(a));
    const start = performance.now();
    const results: DecideResult[] = await Promise.all(
      Array.from({ length: CONTENDED_CLICKS }, async (_, i) => {
        const t = performance.now();
        const result = await click(approvals, id, i);
        latencies.push(performance.now() - t);
        return result;
      }),
    );
    elapsed += performance.now() - start;
    const winners = results.filter((r) => r.kind === "decided").length;
    if (winners !== 1) throw new Error(`approval ${id}: ${winners} winners`);
  }
  return summarize(label, latencies, elapsed);
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

export interface AuditSuite {
  sizes: Sizes;
  appends: Result[];
  decides: Result[];
  notes: string[];
}

/**
 * Every measurement on a fresh Postgres database (created and dropped here) and a fresh PGlite in a
 * temp folder (removed here), whatever fails.
 */
export async function measureAuditSuite(z: Sizes = FULL): Promise<AuditSuite> {
  const server = loadConfig().env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `hermes_bench_${randomBytes(4).toString("hex")}`;
  const url = new URL(server);
  url.pathname = `/${name}`;
  const logger = silentLogger();
  const results: Result[] = [];
  const decides: Result[] = [];
  const notes: string[] = [];

  await adminQuery(server, `CREATE DATABASE ${name}`);
  const released = cleanUpOnInterrupt(() =>
    adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  );
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
        results.push(
          await measure(handle, `postgres, ${writers} writer${writers > 1 ? "s" : ""}`, writers, z),
        );
      }
      notes.push(`postgres ${await verifyRate(handle)}`);
      decides.push(
        await measureColdDecides(
          handle,
          `postgres, ${CONTENDED_CLICKS} clients, cold pool`,
          CONTENDED_CLICKS,
        ),
      );
      for (const clients of DECIDERS) {
        decides.push(
          await measureDecide(handle, `postgres, ${clients} client${clients > 1 ? "s" : ""}`, clients, z),
        );
      }
      decides.push(await measureContended(handle, "postgres, contended", z));
      notes.push(`postgres after approvals: ${await verifyRate(handle)}`);
    } finally {
      await handle.close();
    }
  } finally {
    released();
    await adminQuery(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }

  const dataDir = await mkdtemp(join(tmpdir(), "hermes-bench-"));
  const dirReleased = cleanUpOnInterrupt(() => rm(dataDir, { recursive: true, force: true }));
  try {
    const handle = await openDatabase({ dataDir, logger });
    try {
      await migrate(handle);
      results.push(await measure(handle, "pglite, 1 writer", 1, z));
      notes.push(`pglite ${await verifyRate(handle)}`);
      decides.push(await measureDecide(handle, "pglite, 1 client", 1, z));
      decides.push(await measureContended(handle, "pglite, contended", z));
    } finally {
      await handle.close();
    }
  } finally {
    dirReleased();
    await rm(dataDir, { recursive: true, force: true });
  }

  return { sizes: z, appends: results, decides, notes };
}

/** The suite's tables, as `npm run bench:audit` prints them. */
export function formatAuditSuite({ sizes: z, appends, decides, notes }: AuditSuite): string[] {
  const lines: string[] = [];
  const row = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(20) : c.padStart(10))).join("");
  lines.push(`audit appends with the hash chain, ${z.secondsPerRun} s per run`, "");
  lines.push(row(["", "rows", "rows/s", "p50 ms", "p99 ms"]));
  for (const r of appends) {
    lines.push(row([r.label, String(r.rows), r.perSecond.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2)]));
  }
  lines.push(
    "",
    `approval decide (atomic UPDATE + audit row): ${z.approvalsPerRun} distinct approvals per run; ` +
      `contended = ${CONTENDED_CLICKS} simultaneous clicks on each of ${z.contendedApprovals} approvals`,
    "",
  );
  lines.push(row(["", "clicks", "clicks/s", "p50 ms", "p99 ms"]));
  for (const r of decides) {
    lines.push(row([r.label, String(r.rows), r.perSecond.toFixed(0), r.p50.toFixed(2), r.p99.toFixed(2)]));
  }
  lines.push("", ...notes);
  return lines;
}
