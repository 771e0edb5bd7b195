/**
 * drizzle-orm, loaded through its CommonJS build. Hermes uses drizzle only through this module
 * (type-only imports excepted: Node erases them).
 *
 * Why: drizzle's ESM build is ~450 files under one package.json whose `exports` map is 178 KB, and
 * Node's ESM resolver deserializes that map again for every file of the package it loads. Imported
 * as ESM, drizzle cost a process ~300 ms of start-up and ~160 MB of RSS (the young generation grown
 * by that garbage, never given back); through `require` it costs ~60 ms and ~10 MB
 * (`node bench/drizzle-load.ts` measures both). One copy only: an ESM import anywhere would load the
 * second build beside this one (test/store/drizzle-import.test.ts keeps them out).
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export type { ExtractTablesWithRelations, SQL } from "drizzle-orm";

export const { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, lte, max, ne, or, sql } = load(
  "drizzle-orm",
) as typeof import("drizzle-orm");

export const {
  bigint,
  boolean,
  check,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
} = load("drizzle-orm/pg-core") as typeof import("drizzle-orm/pg-core");

export const { drizzle: drizzleNodePg } = load(
  "drizzle-orm/node-postgres",
) as typeof import("drizzle-orm/node-postgres");

export const { migrate: migrateNodePg } = load(
  "drizzle-orm/node-postgres/migrator",
) as typeof import("drizzle-orm/node-postgres/migrator");

export const { readMigrationFiles } = load("drizzle-orm/migrator") as typeof import("drizzle-orm/migrator");

/**
 * The embedded database: PGlite, drizzle's driver for it and its migrator, loaded on first use only
 * (with Postgres, PGlite's ~45 MB are never loaded). PGlite comes through `require` too, the copy
 * drizzle's driver loads.
 */
export function loadPglite() {
  const { PGlite } = load("@electric-sql/pglite") as typeof import("@electric-sql/pglite");
  const { drizzle: drizzlePglite } = load("drizzle-orm/pglite") as typeof import("drizzle-orm/pglite");
  const { migrate: migratePglite } = load(
    "drizzle-orm/pglite/migrator",
  ) as typeof import("drizzle-orm/pglite/migrator");
  return { PGlite, drizzlePglite, migratePglite };
}
