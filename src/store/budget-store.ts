import type {
  BudgetRefusal,
  BudgetRequester,
  BudgetScopeKind,
  ReserveOutcome,
  TokenBudget,
  TokenReservation,
} from "../agent/token-budget.ts";
import type { AuditEvent, AuditLog } from "./audit.ts";
import {
  type DefaultBudgets,
  listOverrides,
  type ScopeLimit,
  scopeLimit,
  setScopeLimit,
} from "./budget-limits.ts";
import type { Database } from "./db.ts";
import { and, desc, eq, gte, sql } from "./drizzle.ts";
import { tokenUsage } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";

/** One scope's tokens: today (used, and held by calls in flight), this month, and its daily limit. */
export interface ScopeUsage extends ScopeLimit {
  today: number;
  reserved: number;
  month: number;
}

export interface BudgetStore extends TokenBudget {
  usage(scope: BudgetScopeKind, id: string): Promise<ScopeUsage>;
  /** The scopes that used the most tokens today, most first. */
  top(scope: BudgetScopeKind, n: number): Promise<Array<{ id: string; used: number }>>;
  limit(scope: BudgetScopeKind, id: string): Promise<ScopeLimit>;
  /** Limits admins set (not defaults), users then channels, at most `max` of each. */
  overrides(max: number): Promise<Array<{ scope: BudgetScopeKind; id: string; tokensPerDay: number }>>;
  /**
   * Sets a scope's daily limit (0 = no limit), or clears it back to the default (null), and appends
   * `audit` (its `budget.changed` row) in the same transaction: both are written, or neither.
   */
  setLimit(
    change: {
      scope: BudgetScopeKind;
      id: string;
      tokensPerDay: number | null;
      by: string;
    },
    audit: AuditEvent,
  ): Promise<void>;
}

/** Thrown inside the reservation's transaction to roll it back: a scope had no room. */
class Refused {
  readonly refusal: BudgetRefusal;
  constructor(refusal: BudgetRefusal) {
    this.refusal = refusal;
  }
}

/** The UTC date budgets count on (`2026-12-01`). */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Daily token budgets on `token_usage` (Postgres or PGlite). A reservation is one statement in a
 * transaction, over the requester's scope and then the channel's (always that order, so two never
 * wait on each other): each scope's day row is created holding the tokens, or its `reserved` grows,
 * only where `used + reserved + n <= limit`, which concurrent reservations serialize on. If any scope
 * refuses, the transaction rolls back and nothing is held anywhere. A settle is one statement.
 */
export function createBudgetStore(o: {
  db: Database;
  defaults: DefaultBudgets;
  /** Where `setLimit` writes its audit row, inside its transaction. */
  audit: AuditLog;
  now?: () => Date;
}): BudgetStore {
  const { db, defaults } = o;
  const today = () => utcDay(o.now?.() ?? new Date());
  const row = (scope: BudgetScopeKind, id: string, day: string) =>
    and(eq(tokenUsage.scope, scope), eq(tokenUsage.scopeId, id), eq(tokenUsage.day, day));

  async function reserve(requester: BudgetRequester, tokens: number): Promise<ReserveOutcome> {
    const n = Math.max(0, Math.ceil(tokens));
    const day = today();
    const scopes: TokenReservation["scopes"] = [{ scope: "user", id: requester.userId }];
    if (requester.channelId) scopes.push({ scope: "channel", id: requester.channelId });
    // Each scope with its limit (the override, else the default; 0 = none), in lock order.
    const wanted = scopes.map(({ scope, id }, i) => {
      const override =
        scope === "user"
          ? sql`(SELECT token_budget_per_day FROM users WHERE id = ${id})`
          : sql`(SELECT token_budget_per_day FROM channel_budgets WHERE channel_id = ${id})`;
      const fallback = scope === "user" ? defaults.userTokensPerDay : defaults.channelTokensPerDay;
      return sql`(${scope}::text, ${id}::text, coalesce(${override}, ${fallback})::bigint, ${i}::int)`;
    });
    try {
      await db.transaction(async (tx) => {
        // One statement for every scope: a day row is created holding `n` where `n` fits the limit,
        // or an existing one grows only where `used + reserved + n <= limit` (ON CONFLICT locks the
        // row and checks its latest version, so concurrent reservations serialize on it, in scope
        // order). A scope that has no room returns no row, and the whole reservation is rolled back.
        const held = await tx.execute<{ scope: string }>(sql`
          WITH want (scope, scope_id, lim, ord) AS (VALUES ${sql.join(wanted, sql`, `)})
          INSERT INTO token_usage AS t (scope, scope_id, day, reserved)
          SELECT w.scope, w.scope_id, ${day}::date, ${n}::bigint FROM want w
          WHERE w.lim = 0 OR ${n}::bigint <= w.lim
          ORDER BY w.ord
          ON CONFLICT (scope, scope_id, day) DO UPDATE
            SET reserved = t.reserved + excluded.reserved, updated_at = now()
            WHERE (t.used + t.reserved + excluded.reserved <= (
              SELECT nullif(w.lim, 0) FROM want w WHERE w.scope = t.scope AND w.scope_id = t.scope_id
            )) IS NOT FALSE
          RETURNING t.scope`);
        if (held.rows.length === scopes.length) return;
        const got = new Set(held.rows.map((r) => r.scope));
        const { scope, id } = scopes.find((sc) => !got.has(sc.scope))!;
        const { tokensPerDay: limit } = await scopeLimit(tx, defaults, scope, id);
        const [now] = await tx
          .select({ used: tokenUsage.used, reserved: tokenUsage.reserved })
          .from(tokenUsage)
          .where(row(scope, id, day));
        throw new Refused({
          scope,
          id,
          limit,
          used: Number(now?.used ?? 0),
          reserved: Number(now?.reserved ?? 0),
          requested: n,
        });
      });
    } catch (err) {
      if (err instanceof Refused) return { ok: false, refusal: err.refusal };
      throw err;
    }
    return { ok: true, reservation: { day, tokens: n, scopes } };
  }

  async function settle(reservation: TokenReservation, actualTokens: number): Promise<void> {
    const used = Math.max(0, Math.ceil(actualTokens));
    // One statement for every scope of the reservation (atomic without a transaction). Its rows are
    // locked first, in the reservations' order (the user's, then the channel's): an UPDATE alone
    // locks them in scan order, which deadlocks against a reservation holding one and waiting for
    // the other.
    const rows = reservation.scopes.map(({ scope, id }) => sql`(${scope}::text, ${id}::text)`);
    await db.execute(sql`
      WITH locked AS (
        SELECT scope, scope_id FROM token_usage
        WHERE day = ${reservation.day}::date AND (scope, scope_id) IN (${sql.join(rows, sql`, `)})
        ORDER BY scope = 'channel'
        FOR UPDATE
      )
      UPDATE token_usage AS t
      SET reserved = GREATEST(t.reserved - ${reservation.tokens}::bigint, 0),
          used = t.used + ${used}::bigint,
          updated_at = now()
      FROM locked
      WHERE t.day = ${reservation.day}::date AND t.scope = locked.scope AND t.scope_id = locked.scope_id`);
  }

  async function usage(scope: BudgetScopeKind, id: string): Promise<ScopeUsage> {
    const day = today();
    const monthStart = `${day.slice(0, 8)}01`;
    const [[sums], limit] = await Promise.all([
      db
        .select({
          month: sql<string>`coalesce(sum(${tokenUsage.used}), 0)`,
          today: sql<string>`coalesce(sum(${tokenUsage.used}) filter (where ${tokenUsage.day} = ${day}), 0)`,
          reserved: sql<string>`coalesce(sum(${tokenUsage.reserved}) filter (where ${tokenUsage.day} = ${day}), 0)`,
        })
        .from(tokenUsage)
        .where(and(eq(tokenUsage.scope, scope), eq(tokenUsage.scopeId, id), gte(tokenUsage.day, monthStart))),
      scopeLimit(db, defaults, scope, id),
    ]);
    return {
      ...limit,
      today: Number(sums?.today ?? 0),
      reserved: Number(sums?.reserved ?? 0),
      month: Number(sums?.month ?? 0),
    };
  }

  async function top(scope: BudgetScopeKind, n: number) {
    const rows = await db
      .select({ id: tokenUsage.scopeId, used: tokenUsage.used })
      .from(tokenUsage)
      .where(and(eq(tokenUsage.scope, scope), eq(tokenUsage.day, today()), sql`${tokenUsage.used} > 0`))
      .orderBy(desc(tokenUsage.used), tokenUsage.scopeId)
      .limit(n);
    return rows.map((r) => ({ id: r.id, used: Number(r.used) }));
  }

  return withStorageErrors(
    {
      reserve,
      settle,
      usage,
      top,
      limit: (scope: BudgetScopeKind, id: string) => scopeLimit(db, defaults, scope, id),
      setLimit: (change: Parameters<BudgetStore["setLimit"]>[0], event: AuditEvent) =>
        db.transaction(async (tx) => {
          await setScopeLimit(tx, change);
          await o.audit.append(event, tx);
        }),
      overrides: (max: number) => listOverrides(db, max),
    },
    "token budgets",
  );
}
