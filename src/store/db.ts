import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import pg from "pg";
import type { Logger } from "../core/logger.ts";
import { acquireDataDirLock, type DataDirLock, type LockRole } from "./data-dir-lock.ts";
import { drizzleNodePg, loadPglite } from "./drizzle.ts";
import { createStatementNames, preparingClient } from "./pg-prepared.ts";
import * as schema from "./schema.ts";

export type Schema = typeof schema;

/**
 * What both drivers' `execute()` results have in common: `rows`. node-postgres returns a
 * `QueryResult`, PGlite a `Results`; callers only ever need the rows.
 */
export interface QueryResultHKT extends PgQueryResultHKT {
  type: QueryRows<this["row"]>;
}
export interface QueryRows<TRow> {
  rows: TRow[];
}

/** The one database type callers see, whichever driver is behind it. A transaction is one too. */
export type Database = PgDatabase<QueryResultHKT, Schema>;
export type Transaction = PgTransaction<QueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

interface HandleBase {
  db: Database;
  close(): Promise<void>;
}
export interface PostgresHandle extends HandleBase {
  kind: "postgres";
  /** The pool behind `db`: for a dedicated connection (session advisory locks, LISTEN). */
  pool: pg.Pool;
}
export interface PgliteHandle extends HandleBase {
  kind: "pglite";
  client: PGlite;
  /** The data dir's lock, held from before PGlite opens until after it closes. */
  lock: DataDirLock;
}
export type DatabaseHandle = PostgresHandle | PgliteHandle;

export interface OpenDatabaseOptions {
  /** Postgres URL; absent = embedded PGlite under `${dataDir}/pg`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  logger: Logger;
  /** Pool size for Postgres (`HERMES_PG_POOL`; default 5). PGlite is a single connection. */
  maxConnections?: number;
  /**
   * Repeated statements as named prepared statements on Postgres (`HERMES_PG_PREPARE`; default on):
   * see `pg-prepared.ts`. Off behind a pooler that does not track them (PgBouncer < 1.21).
   */
  preparedStatements?: boolean;
  /**
   * Embedded only: who owns the data dir while the database is open (`data-dir-lock.ts`); one process
   * at a time. Default: a command that refuses at once when another process has it.
   */
  owner?: { role: LockRole; command: string; waitMs?: number };
}

/**
 * Bounds on waiting for Postgres. Hermes' statements take milliseconds; without bounds a hung server
 * (or a network that drops packets) leaves a message without any answer. A statement that runs into
 * one fails like a dead database: tools with side effects refuse, and the user reads a sentence.
 * Migrations run on their own connection without them (an index on a big table may take minutes).
 */
export const PG_TIMEOUTS = {
  /** Connecting, or waiting for a free pooled connection. */
  connectionTimeoutMillis: 10_000,
  /** The client gives up on a statement whose answer does not come (the server or network hangs). */
  query_timeout: 15_000,
  /** The server cancels a statement running (or waiting on a lock) this long. */
  statement_timeout: 15_000,
} as const;

/**
 * How long a pooled connection may sit idle before it is closed (pg-pool's default is 10 s). Slack's
 * traffic comes in bursts after quiet minutes; a pool emptied by 10 s of quiet met a burst with a
 * new connection for each of its first statements (a server process forked, named statements parsed
 * again) while 200 acks waited on them. A process holds at most `HERMES_PG_POOL` connections either
 * way (the README's sizing counts them all); TCP keep-alive finds one a network dropped meanwhile.
 */
export const PG_IDLE_MS = 5 * 60_000;

/**
 * Connections per process. Hermes' statements are short, so a few serve many concurrent turns (they
 * wait for a free connection in turn); the server's `max_connections` is shared by every process.
 */
export const DEFAULT_PG_POOL = 5;

/** Opens Postgres (pg Pool) when a URL is given, else embedded PGlite; same schema, same `db` type. */
export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const { databaseUrl, dataDir, logger } = options;
  if (databaseUrl) {
    const prepared = options.preparedStatements ?? true;
    const pool = new pg.Pool({
      ...(prepared
        ? {
            Client: preparingClient(
              createStatementNames({
                onPoolerFault: (err) =>
                  logger.warn(
                    { err: err.message },
                    "Postgres lost a named prepared statement (a pooler such as PgBouncer < 1.21 in transaction mode?): statements go unnamed from now on; set HERMES_PG_PREPARE=off",
                  ),
              }),
            ),
          }
        : {}),
      connectionString: databaseUrl,
      max: options.maxConnections ?? DEFAULT_PG_POOL,
      idleTimeoutMillis: PG_IDLE_MS,
      keepAlive: true,
      application_name: "hermes",
      ...PG_TIMEOUTS,
    });
    // An idle client losing its connection emits here; unhandled, it would crash the process.
    pool.on("error", (err) => logger.warn({ err }, "postgres connection lost"));
    // A checked-out client (a transaction between statements, a query in flight) has no pool listener:
    // pg-pool removes its idle one at checkout, and pg emits `error` on the client when the socket dies,
    // besides failing its queries. Unheard, that event is an uncaught exception that kills the process
    // in the middle of an outage the callers already handle (their queries reject). So every client
    // gets a listener for its whole life.
    pool.on("connect", (client) => {
      client.on("error", (err) => logger.debug({ err }, "postgres connection lost while checked out"));
    });
    const db: Database = drizzleNodePg({ client: pool, schema });
    let closed = false;
    return {
      kind: "postgres",
      db,
      pool,
      async close() {
        if (closed) return;
        closed = true;
        await pool.end();
      },
    };
  }
  // One process owns the embedded data: the lock is held before PGlite opens any of its files.
  const lock = await acquireDataDirLock({
    dataDir,
    ...(options.owner ?? { role: "cli", command: "a Hermes process" }),
  });
  let client: PGlite;
  const dir = join(dataDir, "pg");
  // Loaded only for the embedded database: with Postgres, PGlite (~45 MB) is never loaded.
  const { PGlite, drizzlePglite } = loadPglite();
  try {
    mkdirSync(dir, { recursive: true });
    client = await PGlite.create(dir);
  } catch (err) {
    lock.release();
    throw err;
  }
  const db: Database = drizzlePglite({ client, schema });
  logger.debug({ dir }, "embedded PGlite opened");
  return {
    kind: "pglite",
    db,
    client,
    lock,
    async close() {
      try {
        if (!client.closed) await client.close();
      } finally {
        lock.release();
      }
    },
  };
}
