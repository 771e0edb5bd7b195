import type { BudgetScopeKind } from "../agent/budget/token-budget.ts";
import { LEGACY_TENANT, type TenantKey } from "../core/tenant.ts";
import type { Database } from "./db.ts";
import { and, asc, eq, isNotNull, sql } from "./drizzle.ts";
import { channelBudgets, users } from "./schema.ts";

/** HERMES_BUDGET_USER_TOKENS_PER_DAY and HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY; 0 = no limit. */
export interface DefaultBudgets {
  userTokensPerDay: number;
  channelTokensPerDay: number;
}

/** A scope's daily limit (0 = no limit) and whether it is an override rather than the default. */
export interface ScopeLimit {
  tokensPerDay: number;
  overridden: boolean;
}

/**
 * The daily limit of a user (`users.token_budget_per_day`) or a channel of `team`
 * (`channel_budgets`): the override when there is one (0 there = no limit for that scope), else the
 * configured default.
 */
export async function scopeLimit(
  db: Database,
  defaults: DefaultBudgets,
  scope: BudgetScopeKind,
  id: string,
  team: TenantKey = LEGACY_TENANT,
): Promise<ScopeLimit> {
  const [row] =
    scope === "user"
      ? await db.select({ n: users.tokenBudgetPerDay }).from(users).where(eq(users.id, id))
      : await db
          .select({ n: channelBudgets.tokenBudgetPerDay })
          .from(channelBudgets)
          .where(and(eq(channelBudgets.teamId, team), eq(channelBudgets.channelId, id)));
  if (row?.n != null) return { tokensPerDay: Number(row.n), overridden: true };
  return {
    tokensPerDay: scope === "user" ? defaults.userTokensPerDay : defaults.channelTokensPerDay,
    overridden: false,
  };
}

/** Sets (a number) or clears (null: back to the default) a scope's override; a channel's, in `team`. */
export async function setScopeLimit(
  db: Database,
  change: { scope: BudgetScopeKind; id: string; tokensPerDay: number | null; by: string; team?: TenantKey },
): Promise<void> {
  const { scope, id, tokensPerDay, by } = change;
  const team = change.team ?? LEGACY_TENANT;
  if (scope === "user" && tokensPerDay === null) {
    await db.update(users).set({ tokenBudgetPerDay: null, updatedAt: sql`now()` }).where(eq(users.id, id));
  } else if (scope === "user") {
    await db
      .insert(users)
      .values({ id, tokenBudgetPerDay: tokensPerDay })
      .onConflictDoUpdate({
        target: users.id,
        set: { tokenBudgetPerDay: tokensPerDay, updatedAt: sql`now()` },
      });
  } else if (tokensPerDay === null) {
    await db
      .delete(channelBudgets)
      .where(and(eq(channelBudgets.teamId, team), eq(channelBudgets.channelId, id)));
  } else {
    await db
      .insert(channelBudgets)
      .values({ teamId: team, channelId: id, tokenBudgetPerDay: tokensPerDay, updatedBy: by })
      .onConflictDoUpdate({
        target: [channelBudgets.teamId, channelBudgets.channelId],
        set: { tokenBudgetPerDay: tokensPerDay, updatedBy: by, updatedAt: sql`now()` },
      });
  }
}

/**
 * Every override, users then `team`'s channels, in id order (at most `max` of each). User limits are
 * kept per Slack user id (`users`), which no two teams share.
 */
export async function listOverrides(
  db: Database,
  max: number,
  team: TenantKey = LEGACY_TENANT,
): Promise<Array<{ scope: BudgetScopeKind; id: string; tokensPerDay: number }>> {
  const [u, c] = await Promise.all([
    db
      .select({ id: users.id, n: users.tokenBudgetPerDay })
      .from(users)
      .where(isNotNull(users.tokenBudgetPerDay))
      .orderBy(asc(users.id))
      .limit(max),
    db
      .select({ id: channelBudgets.channelId, n: channelBudgets.tokenBudgetPerDay })
      .from(channelBudgets)
      .where(eq(channelBudgets.teamId, team))
      .orderBy(asc(channelBudgets.channelId))
      .limit(max),
  ]);
  return [
    ...u.map((r) => ({ scope: "user" as const, id: r.id, tokensPerDay: Number(r.n) })),
    ...c.map((r) => ({ scope: "channel" as const, id: r.id, tokensPerDay: Number(r.n) })),
  ];
}
