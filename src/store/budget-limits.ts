import type { BudgetScopeKind } from "../agent/budget/token-budget.ts";
import type { Database } from "./db.ts";
import { asc, eq, isNotNull, sql } from "./drizzle.ts";
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
 * The daily limit of a user (`users.token_budget_per_day`) or a channel (`channel_budgets`): the
 * override when there is one (0 there = no limit for that scope), else the configured default.
 */
export async function scopeLimit(
  db: Database,
  defaults: DefaultBudgets,
  scope: BudgetScopeKind,
  id: string,
): Promise<ScopeLimit> {
  const [row] =
    scope === "user"
      ? await db.select({ n: users.tokenBudgetPerDay }).from(users).where(eq(users.id, id))
      : await db
          .select({ n: channelBudgets.tokenBudgetPerDay })
          .from(channelBudgets)
          .where(eq(channelBudgets.channelId, id));
  if (row?.n != null) return { tokensPerDay: Number(row.n), overridden: true };
  return {
    tokensPerDay: scope === "user" ? defaults.userTokensPerDay : defaults.channelTokensPerDay,
    overridden: false,
  };
}

/** Sets (a number) or clears (null: back to the default) a scope's override. */
export async function setScopeLimit(
  db: Database,
  change: { scope: BudgetScopeKind; id: string; tokensPerDay: number | null; by: string },
): Promise<void> {
  const { scope, id, tokensPerDay, by } = change;
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
    await db.delete(channelBudgets).where(eq(channelBudgets.channelId, id));
  } else {
    await db
      .insert(channelBudgets)
      .values({ channelId: id, tokenBudgetPerDay: tokensPerDay, updatedBy: by })
      .onConflictDoUpdate({
        target: channelBudgets.channelId,
        set: { tokenBudgetPerDay: tokensPerDay, updatedBy: by, updatedAt: sql`now()` },
      });
  }
}

/** Every override, users then channels, in id order (at most `max` of each). */
export async function listOverrides(
  db: Database,
  max: number,
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
      .orderBy(asc(channelBudgets.channelId))
      .limit(max),
  ]);
  return [
    ...u.map((r) => ({ scope: "user" as const, id: r.id, tokensPerDay: Number(r.n) })),
    ...c.map((r) => ({ scope: "channel" as const, id: r.id, tokensPerDay: Number(r.n) })),
  ];
}
