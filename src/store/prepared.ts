/**
 * Statements a turn runs many times, built once. drizzle builds a query's SQL on every execution
 * (~20–90 µs of CPU each, ~15 statements a turn); `prepared(build)` builds it on first use and then
 * only fills in the `sql.placeholder(…)` values. drizzle gets no name for it: whether Postgres keeps
 * it as a named prepared statement is the pool's choice for every repeated statement alike
 * (`pg-prepared.ts`, `HERMES_PG_PREPARE`). A prepared statement belongs to the `db` it was built on,
 * not to a transaction.
 */
export function prepared<P>(build: () => { prepare(name: string): P }): () => P {
  let statement: P | undefined;
  // drizzle's `prepare(name)`: without a name, node-postgres sends an unnamed Parse, as for any query.
  return () => (statement ??= build().prepare(undefined as unknown as string));
}
