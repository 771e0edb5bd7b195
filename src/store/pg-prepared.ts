import { createHash } from "node:crypto";
import pg from "pg";

/**
 * Named prepared statements for the statements Hermes runs again and again, chosen automatically.
 *
 * node-postgres sends a statement with parameters unnamed: Postgres parses, analyses and plans it
 * again on every execution (~0.2–0.5 ms of the server's CPU for the multi-line statements of a turn,
 * measured in docs/performance.md). Named once per connection, it is parsed once and its plan is
 * cached: later executions send only Bind and Execute.
 *
 * Which statements: those with parameters (already sent with the extended protocol) whose text this
 * process has run `PREPARE_AFTER` times, at most `MAX_NAMED` texts a process (so one-off texts, and
 * a flood of distinct ones, never pile up on the server's connections). The name is a hash of the
 * text, so every connection and process names a text alike and two texts never share a name.
 *
 * Off (`HERMES_PG_PREPARE=off`) for a pooler that hands one client's statements to other server
 * connections: PgBouncer in transaction mode before 1.21, or 1.21+ without `max_prepared_statements`.
 * If the server says a named statement is missing or already exists (what such a pooler causes), this
 * process stops naming statements at once and reports it through `onPoolerFault`; the statement
 * that met it fails as any storage fault does.
 */

/** Runs of one text before it is named (psycopg's `prepare_threshold` idea: one-offs stay unnamed). */
export const PREPARE_AFTER = 2;
/** Texts a process names at most (each connection holds at most this many statements). */
export const MAX_NAMED = 200;
/** Distinct texts counted while they wait for their `PREPARE_AFTER`th run; the count starts over past it. */
const MAX_COUNTED = 2000;

/** SQLSTATEs a pooler that shares server connections causes for named statements. */
const POOLER_FAULTS = new Set([
  "26000", // invalid_sql_statement_name: prepared statement "…" does not exist
  "42P05", // duplicate_prepared_statement: prepared statement "…" already exists
]);
/** A prepared statement whose table changed shape under it (a migration): that text stays unnamed. */
const STALE_PLAN = "0A000";

export interface StatementNames {
  /** The name to run `text` under, or undefined to run it unnamed; counts the run. */
  nameFor(text: string): string | undefined;
  /** A named run failed with this error: stop naming what it says should not be named. */
  failed(text: string, err: unknown): void;
  /** Whether names are still given (false after a pooler fault). */
  readonly enabled: boolean;
}

export function createStatementNames(
  o: {
    onPoolerFault?: (err: Error) => void;
    /** Defaults `PREPARE_AFTER` and `MAX_NAMED` (tests). */
    prepareAfter?: number;
    maxNamed?: number;
  } = {},
): StatementNames {
  const prepareAfter = o.prepareAfter ?? PREPARE_AFTER;
  const maxNamed = o.maxNamed ?? MAX_NAMED;
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const never = new Set<string>();
  let enabled = true;
  return {
    get enabled() {
      return enabled;
    },
    nameFor(text) {
      if (!enabled) return undefined;
      const name = names.get(text);
      if (name !== undefined) return name;
      if (names.size >= maxNamed || never.has(text)) return undefined;
      const runs = (counts.get(text) ?? 0) + 1;
      if (runs < prepareAfter) {
        if (counts.size >= MAX_COUNTED) counts.clear();
        counts.set(text, runs);
        return undefined;
      }
      counts.delete(text);
      const given = `hermes_${createHash("sha256").update(text).digest("hex").slice(0, 40)}`;
      names.set(text, given);
      return given;
    },
    failed(text, err) {
      // pg's DatabaseError carries the server's SQLSTATE as `code`.
      if (!(err instanceof Error) || !("code" in err) || typeof err.code !== "string") return;
      const code = err.code;
      if (POOLER_FAULTS.has(code)) {
        if (!enabled) return;
        enabled = false;
        o.onPoolerFault?.(err);
      } else if (code === STALE_PLAN) {
        names.delete(text);
        never.add(text);
      }
    },
  };
}

/**
 * A `pg.Client` class (for `pg.Pool`'s `Client` option, pg's own seam for a custom client) that runs
 * repeated statements with parameters as named prepared statements, as `names` decides, through pg's
 * `{ name, text, values }` query config. Everything else (statements without parameters, a caller's
 * own name, multi-statement text, submittables such as cursors) goes to pg's `query` unchanged.
 */
export function preparingClient(names: StatementNames): typeof pg.Client {
  const query = pg.Client.prototype.query;
  class PreparingClient extends pg.Client {}
  // One function serves every call form of pg's `query` (text or config; values; promise or
  // callback); TypeScript cannot declare one method for its overloads, so it is defined, not declared.
  Object.defineProperty(PreparingClient.prototype, "query", {
    configurable: true,
    writable: true,
    value: function (this: pg.Client, ...args: unknown[]): unknown {
      const [config, values, callback] = args;
      const cb = typeof values === "function" ? values : callback;
      const named = withName(names, config, typeof values === "function" ? undefined : values);
      if (!named) return Reflect.apply(query, this, args);
      if (typeof cb === "function") {
        const done = (err: Error | null, res?: pg.QueryResult) => {
          if (err) names.failed(named.text, err);
          Reflect.apply(cb, undefined, [err, res]);
        };
        return Reflect.apply(query, this, [named, done]);
      }
      const result: Promise<pg.QueryResult> = Reflect.apply(query, this, [named]);
      result.catch((err: unknown) => names.failed(named.text, err));
      return result;
    },
  });
  return PreparingClient;
}

interface NamedConfig {
  text: string;
  values: unknown[];
  name: string;
}

/** The query config with a name, when it has parameters and `names` gives its text one. */
function withName(names: StatementNames, config: unknown, values: unknown): NamedConfig | undefined {
  const base = typeof config === "string" ? { text: config } : config;
  if (!base || typeof base !== "object" || ("submit" in base && typeof base.submit === "function"))
    return undefined;
  if (!("text" in base) || typeof base.text !== "string") return undefined;
  // A caller's own name is kept; "" is Postgres' unnamed statement (what drizzle's `prepare` is given).
  if ("name" in base && base.name !== undefined && base.name !== "") return undefined;
  if ("callback" in base && base.callback !== undefined) return undefined;
  const params = values ?? ("values" in base ? base.values : undefined);
  if (!Array.isArray(params) || params.length === 0) return undefined;
  const name = names.nameFor(base.text);
  if (name === undefined) return undefined;
  // The rest of the config (drizzle's `types`, `rowMode`) goes along.
  return { ...base, text: base.text, values: params, name };
}
