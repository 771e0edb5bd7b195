/**
 * Statements a turn runs many times, built once. drizzle builds a query's SQL on every execution
 * (~20–90 µs of CPU each, ~15 statements a turn); `prepared(build)` builds it on first use and then
 * only fills in the `sql.placeholder(…)` values. drizzle gets no name for it: whether Postgres keeps
 * it as a named prepared statement is the pool's choice for every repeated statement alike
 * (`pg-prepared.ts`, `HERMES_PG_PREPARE`). A prepared statement belongs to the `db` it was built on,
 * not to a transaction.
 */
/** Postgres' name for the unnamed prepared statement (protocol: an empty name). */
const UNNAMED = "";

export function prepared<P>(build: () => { prepare(name: string): P }): () => P {
  let statement: P | undefined;
  // drizzle's `prepare(name)` hands the name to pg as the query config's `name`: "" is Postgres'
  // unnamed statement, so pg sends an unnamed Parse, as for any query (test/library-seams pins it).
  return () => (statement ??= build().prepare(UNNAMED));
}
