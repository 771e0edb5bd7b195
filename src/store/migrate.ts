import { fileURLToPath } from "node:url";
import pg from "pg";
import type { Database, DatabaseHandle } from "./db.ts";
import { drizzleNodePg, loadPglite, migrateNodePg, readMigrationFiles, sql } from "./drizzle.ts";
import * as schema from "./schema.ts";

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../drizzle", import.meta.url));

/** Session advisory lock key: replicas starting together apply migrations one at a time. */
const MIGRATION_LOCK_KEY = 0x4845524d_0001; // "HERM" + 1

export interface MigrateResult {
  /** Migrations applied by this call (0 when the schema was already current). */
  applied: number;
}

/**
 * Applies pending migrations from `drizzle/` on either driver. When nothing is pending it only reads
 * the migrations table, so an app connected as `hermes_app` (which cannot create anything) starts
 * fine against a database migrated by its owner.
 */
export async function migrate(handle: DatabaseHandle): Promise<MigrateResult> {
  const files = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const pendingIn = async (db: Database) => {
    const last = await lastAppliedMillis(db);
    return files.filter((f) => last === undefined || f.folderMillis > last).length;
  };

  if (handle.kind === "pglite") {
    const pending = await pendingIn(handle.db);
    if (pending > 0) {
      // Loaded only here: with Postgres, PGlite (~45 MB) is never loaded.
      const { drizzlePglite, migratePglite } = loadPglite();
      await migratePglite(drizzlePglite({ client: handle.client }), { migrationsFolder: MIGRATIONS_FOLDER });
    }
    return { applied: pending };
  }

  if ((await pendingIn(handle.db)) === 0) return { applied: 0 };
  // Its own connection, without the pool's statement timeouts: a migration may take minutes.
  const conn = new pg.Client({
    connectionString: handle.pool.options.connectionString,
    application_name: "hermes-migrate",
  });
  await conn.connect();
  try {
    await conn.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      const db = drizzleNodePg({ client: conn, schema });
      // Count again under the lock: another replica may have just applied them.
      const pending = await pendingIn(db);
      if (pending > 0) await migrateNodePg(db, { migrationsFolder: MIGRATIONS_FOLDER });
      return { applied: pending };
    } finally {
      await conn.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await conn.end().catch(() => undefined);
  }
}

/** `created_at` of the newest applied migration (drizzle stores the journal's `when`), if any. */
async function lastAppliedMillis(db: Database): Promise<number | undefined> {
  const table = await db.execute<{ present: boolean }>(
    sql`SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`,
  );
  if (!table.rows[0]?.present) return undefined;
  const { rows } = await db.execute<{ last: string | number | null }>(
    sql`SELECT max(created_at) AS last FROM drizzle.__drizzle_migrations`,
  );
  const last = rows[0]?.last;
  return last === null || last === undefined ? undefined : Number(last);
}
