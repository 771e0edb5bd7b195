import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { silentLogger } from "../../src/core/logger.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { sql } from "../../src/store/drizzle.ts";
import { migrate } from "../../src/store/migrate.ts";
import { seedPgliteDataDir } from "./pglite-template.ts";

/** The local server's maintenance database; test databases are created beside it, never in it. */
export const PG_ADMIN_URL = process.env.HERMES_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the local Postgres (`hermes_t_<random>`), dropped by `drop()`. */
export async function createTestDatabase(prefix = "hermes_t"): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    // FORCE: a test that failed mid-way may still hold connections.
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A pg Pool for a test's own statements, with an `error` listener. pg-pool's `end()` resolves once its
 * idle clients are told to end, before their connections close; a database dropped right after
 * (`drop()`, WITH (FORCE)) terminates those backends, and the ending client's error reaches the pool's
 * `error` event: without a listener, an uncaught exception in whichever test file runs next. An error
 * of a pool that is ending is expected and dropped; any other is printed (the statement that met it
 * fails on its own).
 */
export function testPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", (err) => {
    if (!pool.ending) console.error(`test pool: ${err.message}`);
  });
  return pool;
}

/** Runs one statement on the maintenance database (CREATE/DROP DATABASE, roles). */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export type DriverKind = DatabaseHandle["kind"];
export const DRIVERS: DriverKind[] = ["postgres", "pglite"];

export interface TestStore {
  handle: DatabaseHandle;
  /** Postgres URL of the test database; undefined for PGlite. */
  url: string | undefined;
  /** PGlite's HERMES_DATA_DIR (the database is in `${dataDir}/pg`); undefined for Postgres. */
  dataDir: string | undefined;
  cleanup(): Promise<void>;
}

/**
 * A migrated handle on a fresh database: a new Postgres database, or PGlite in a temp dir (a copy of
 * the run's migrated template).
 */
export async function openTestStore(
  kind: DriverKind,
  options: { maxConnections?: number } = {},
): Promise<TestStore> {
  const logger = silentLogger();
  if (kind === "postgres") {
    const database = await createTestDatabase();
    const handle = await openDatabase({ databaseUrl: database.url, dataDir: "", logger, ...options });
    await migrate(handle);
    return {
      handle,
      url: database.url,
      dataDir: undefined,
      async cleanup() {
        try {
          await handle.close();
        } finally {
          await database.drop();
        }
      },
    };
  }
  const dataDir = await mkdtemp(join(tmpdir(), "hermes-pglite-"));
  const templateRoot = await pgliteTemplateRoot();
  if (templateRoot) await seedPgliteDataDir(dataDir, templateRoot);
  const handle = await openDatabase({ dataDir, logger });
  // Still run: on a copied template it finds nothing pending, and proves the template is current.
  await migrate(handle);
  return {
    handle,
    url: undefined,
    dataDir,
    async cleanup() {
      try {
        await handle.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/** The run's PGlite template folder, inside vitest (its global setup provides it); else none. */
async function pgliteTemplateRoot(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  const { inject } = await import("vitest");
  return inject("pgliteTemplateRoot");
}

/** `url` with a different login-time role, e.g. the app role: every pooled connection runs as it. */
export function urlWithRole(url: string, role: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c role=${role}`);
  return u.toString();
}

/** Runs raw SQL on either driver and returns the rows. */
export async function execSql<T extends Record<string, unknown> = Record<string, unknown>>(
  db: DatabaseHandle["db"],
  text: string,
): Promise<T[]> {
  const result = await db.execute<T>(sql.raw(text));
  return result.rows;
}

/** The error's message with its causes' (drizzle wraps the driver error as `cause`). */
export async function dbErrorText(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    const parts: string[] = [];
    for (let e: unknown = err; e instanceof Error; e = e.cause) parts.push(e.message);
    return parts.join(" | ");
  }
  throw new Error("expected the statement to fail, but it succeeded");
}

/** True while an insert into `slack_events` waits for a lock (a test holds the table locked). */
export async function claimWaitsForLock(pool: pg.Pool): Promise<boolean> {
  const { rows } = await pool.query<{ n: string }>(
    `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query ~* '^\\s*insert into "?slack_events"?'`,
  );
  return rows[0]!.n !== "0";
}
