import type {
  BudgetRequester,
  BudgetScopeKind,
  ReserveOutcome,
  TokenBudget,
  TokenReservation,
} from "../agent/budget/token-budget.ts";
import type { TenantKey } from "../core/tenant.ts";
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
import { pgCode } from "./pg-error.ts";
import { runs, tokenUsage } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";
import { ofTenant } from "./tenant-filter.ts";

/** One scope's tokens: today (used, and held by calls in flight), this month, and its daily limit. */
export interface ScopeUsage extends ScopeLimit {
  today: number;
  reserved: number;
  month: number;
}

export interface BudgetStore extends TokenBudget {
  /** `team`: whose channel overrides apply (`core/tenant.ts`; default the legacy tenant ''). */
  usage(scope: BudgetScopeKind, id: string, team?: TenantKey): Promise<ScopeUsage>;
  /** The ids that used most today (of `team`: those its runs used today), most first. */
  top(scope: BudgetScopeKind, n: number, team?: TenantKey): Promise<Array<{ id: string; used: number }>>;
  /** A channel's limit is `team`'s override of it (`core/tenant.ts`; default the legacy tenant ''). */
  limit(scope: BudgetScopeKind, id: string, team?: TenantKey): Promise<ScopeLimit>;
  /** Limits admins set (not defaults), users then `team`'s channels, at most `max` of each. */
  overrides(
    max: number,
    team?: TenantKey,
  ): Promise<Array<{ scope: BudgetScopeKind; id: string; tokensPerDay: number }>>;
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
      /** The team whose channel override this is (`core/tenant.ts`). */
      team?: TenantKey;
    },
    audit: AuditEvent,
  ): Promise<void>;
}

/**
 * SQLSTATE of the reservation statement's own refusal: its last step divides by zero when fewer
 * scopes were held than asked for, which aborts the statement and so undoes every row it wrote.
 */
const REFUSED = "22012";

/**
 * A channel's override as a run's reservation reads it: its team's (`requester.teamId`, the tenant
 * key). A requester that names no team gets the newest override of that channel id: Slack channel
 * ids are not reused across workspaces, so it is the channel's own.
 */
function channelOverride(channelId: string, team: TenantKey | undefined) {
  return team === undefined
    ? sql`(SELECT token_budget_per_day FROM channel_budgets WHERE channel_id = ${channelId} ORDER BY updated_at DESC LIMIT 1)`
    : sql`(SELECT token_budget_per_day FROM channel_budgets WHERE team_id = ${team} AND channel_id = ${channelId})`;
}

/** The UTC date budgets count on (`2026-12-01`). */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/**
 * Daily token budgets on `token_usage` (Postgres or PGlite). A reservation is one statement (one
 * round trip), over the requester's scope and then the channel's (always that order, so two never
 * wait on each other): each scope's day row is created holding the tokens, or its `reserved` grows,
 * only where `used + reserved + n <= limit`, which concurrent reservations serialize on. If any scope
 * refuses, the statement fails, and nothing is held anywhere. A settle is one statement.
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

  async function reserve(requester: BudgetRequester, tokens: number): Promise<ReserveOutcome> {
    const n = Math.max(0, Math.ceil(tokens));
    const day = today();
    const scopes: TokenReservation["scopes"] = [{ scope: "user", id: requester.userId }];
    if (requester.channelId) scopes.push({ scope: "channel", id: requester.channelId });
    // Each scope with its limit (the override, else the default; 0 = none), in lock order.
    const want = sql`WITH want (scope, scope_id, lim, ord) AS (VALUES ${sql.join(
      scopes.map(({ scope, id }, i) => {
        const override =
          scope === "user"
            ? sql`(SELECT token_budget_per_day FROM users WHERE id = ${id})`
            : channelOverride(id, requester.teamId);
        // A channel without an override: its profile's budget, else the configured default.
        const fallback =
          scope === "user"
            ? defaults.userTokensPerDay
            : (requester.channelTokensPerDay ?? defaults.channelTokensPerDay);
        return sql`(${scope}::text, ${id}::text, coalesce(${override}, ${fallback})::bigint, ${i}::int)`;
      }),
      sql`, `,
    )})`;
    for (let attempt = 1; ; attempt++) {
      try {
        // One statement, so one round trip and atomic without a transaction: a day row is created
        // holding `n` where `n` fits the limit, or an existing one grows only where
        // `used + reserved + n <= limit` (ON CONFLICT locks the row and checks its latest version, so
        // concurrent reservations serialize on it, in scope order). A scope without room returns no
        // row; then the division by zero aborts the statement, and with it every row it wrote.
        await db.execute(sql`
          ${want}, held AS (
            INSERT INTO token_usage AS t (scope, scope_id, day, reserved)
            SELECT w.scope, w.scope_id, ${day}::date, ${n}::bigint FROM want w
            WHERE w.lim = 0 OR ${n}::bigint <= w.lim
            ORDER BY w.ord
            ON CONFLICT (scope, scope_id, day) DO UPDATE
              SET reserved = t.reserved + excluded.reserved, updated_at = now()
              WHERE (t.used + t.reserved + excluded.reserved <= (
                SELECT nullif(w.lim, 0) FROM want w WHERE w.scope = t.scope AND w.scope_id = t.scope_id
              )) IS NOT FALSE
            RETURNING t.scope)
          SELECT count(*) / (count(*) = ${scopes.length}::bigint)::int AS held FROM held`);
        return { ok: true, reservation: { day, tokens: n, scopes } };
      } catch (err) {
        if (pgCode(err) !== REFUSED) throw err;
      }
      // Refused, and nothing is held. Which scope, and how full it is, for the user's message.
      const { rows } = await db.execute<{
        scope: BudgetScopeKind;
        scope_id: string;
        lim: string;
        used: string;
        reserved: string;
      }>(sql`
        ${want}
        SELECT w.scope, w.scope_id, w.lim, coalesce(t.used, 0) AS used, coalesce(t.reserved, 0) AS reserved
        FROM want w LEFT JOIN token_usage t ON t.scope = w.scope AND t.scope_id = w.scope_id AND t.day = ${day}::date
        ORDER BY w.ord`);
      const full = rows.find(
        (r) => Number(r.lim) > 0 && Number(r.used) + Number(r.reserved) + n > Number(r.lim),
      );
      // Room came free meanwhile (a call settled): ask again, a few times at most.
      if (!full && attempt < 3) continue;
      const r = full ?? rows.find((x) => Number(x.lim) > 0) ?? rows[0]!;
      return {
        ok: false,
        refusal: {
          scope: r.scope,
          id: r.scope_id,
          limit: Number(r.lim),
          used: Number(r.used),
          reserved: Number(r.reserved),
          requested: n,
        },
      };
    }
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

  async function usage(scope: BudgetScopeKind, id: string, team?: TenantKey): Promise<ScopeUsage> {
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
      scopeLimit(db, defaults, scope, id, team),
    ]);
    return {
      ...limit,
      today: Number(sums?.today ?? 0),
      reserved: Number(sums?.reserved ?? 0),
      month: Number(sums?.month ?? 0),
    };
  }

  async function top(scope: BudgetScopeKind, n: number, team?: TenantKey) {
    const day = today();
    // Usage is counted per person and channel id; a team sees the ids its own runs used today.
    const column = scope === "user" ? runs.userId : runs.channelId;
    const ofTeam =
      team === undefined
        ? undefined
        : sql`EXISTS (SELECT 1 FROM ${runs} WHERE ${ofTenant(runs.teamId, team)}
            AND ${column} = ${tokenUsage.scopeId} AND ${runs.createdAt} >= ${day}::date)`;
    const rows = await db
      .select({ id: tokenUsage.scopeId, used: tokenUsage.used })
      .from(tokenUsage)
      .where(and(eq(tokenUsage.scope, scope), eq(tokenUsage.day, day), sql`${tokenUsage.used} > 0`, ofTeam))
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
      limit: (scope: BudgetScopeKind, id: string, team?: TenantKey) =>
        scopeLimit(db, defaults, scope, id, team),
      setLimit: (change: Parameters<BudgetStore["setLimit"]>[0], event: AuditEvent) =>
        db.transaction(async (tx) => {
          await setScopeLimit(tx, change);
          await o.audit.append(event, tx);
        }),
      overrides: (max: number, team?: TenantKey) => listOverrides(db, max, team),
    },
    "token budgets",
  );
}
