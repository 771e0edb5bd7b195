/**
 * The port between a run and the daily token budgets (the Postgres implementation is
 * `store/budget-store.ts`). Scopes: the requester, and the channel the run answers in.
 */
export type BudgetScopeKind = "user" | "channel";

/** Whose budgets a model call counts against. */
export interface BudgetRequester {
  userId: string;
  channelId?: string | undefined;
  /** The run's tenant key (`core/tenant.ts`): whose channel override applies. */
  teamId?: string | undefined;
  /**
   * The channel's daily limit where `/hermes budget #channel` set none: its profile's `tokens_per_day`
   * (absent: HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY).
   */
  channelTokensPerDay?: number | undefined;
}

/** Tokens held for one model call, on one UTC day, in every scope of its requester. */
export interface TokenReservation {
  day: string;
  tokens: number;
  scopes: Array<{ scope: BudgetScopeKind; id: string }>;
}

/** The scope that had no room: its limit and what was already used and held when it refused. */
export interface BudgetRefusal {
  scope: BudgetScopeKind;
  id: string;
  limit: number;
  used: number;
  reserved: number;
  requested: number;
}

export type ReserveOutcome =
  | { ok: true; reservation: TokenReservation }
  | { ok: false; refusal: BudgetRefusal };

export interface TokenBudget {
  /** Holds `tokens` in every scope at once, or in none (when any scope would go over its limit). */
  reserve(requester: BudgetRequester, tokens: number): Promise<ReserveOutcome>;
  /** Releases the reservation and counts what the call really used (0 when it failed). */
  settle(reservation: TokenReservation, actualTokens: number): Promise<void>;
}
