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
      const code = (err as { code?: unknown } | null)?.code;
      if (typeof code !== "string") return;
      if (POOLER_FAULTS.has(code)) {
        if (!enabled) return;
        enabled = false;
        o.onPoolerFault?.(err as Error);
      } else if (code === STALE_PLAN) {
        names.delete(text);
        never.add(text);
      }
    },
  };
}

type QueryArgs = [config: unknown, values?: unknown, callback?: unknown];
type Callback = (err: unknown, result?: unknown) => void;

/**
 * A `pg.Client` class (for `pg.Pool`'s `Client` option) that runs repeated statements with
 * parameters as named prepared statements, as `names` decides. Everything else (statements without
 * parameters, multi-statement text, submittables such as cursors) goes to pg unchanged.
 */
export function preparingClient(names: StatementNames): typeof pg.Client {
  const query = pg.Client.prototype.query as (this: pg.Client, ...a: QueryArgs) => unknown;
  class PreparingClient extends pg.Client {
    // pg's overloads are many; this one forwards whatever it is given.
    override query(...args: QueryArgs): never {
      const [config, values, callback] = args;
      const cb = typeof values === "function" ? values : callback;
      const named = withName(names, config, typeof values === "function" ? undefined : values);
      if (!named) return query.apply(this, args) as never;
      if (typeof cb === "function") {
        return query.call(this, named, (err: unknown, res: unknown) => {
          if (err) names.failed(named.text, err);
          (cb as Callback)(err, res);
        }) as never;
      }
      const result = query.call(this, named) as Promise<unknown>;
      result.catch((err: unknown) => names.failed(named.text, err));
      return result as never;
    }
  }
  return PreparingClient;
}

interface NamedConfig {
  text: string;
  values: unknown[];
  name: string;
}

/** The query config with a name, when it has parameters and `names` gives its text one. */
function withName(names: StatementNames, config: unknown, values: unknown): NamedConfig | undefined {
  let base: Record<string, unknown>;
  if (typeof config === "string") base = { text: config };
  else if (
    config &&
    typeof config === "object" &&
    typeof (config as { submit?: unknown }).submit !== "function"
  )
    base = config as Record<string, unknown>;
  else return undefined;
  const text = base.text;
  const params = values ?? base.values;
  if (typeof text !== "string" || base.name !== undefined || base.callback !== undefined) return undefined;
  if (!Array.isArray(params) || params.length === 0) return undefined;
  const name = names.nameFor(text);
  if (name === undefined) return undefined;
  return { ...base, text, values: params, name };
}
