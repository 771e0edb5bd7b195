import { budgetChannel } from "../../agent/budget/budget-channel.ts";
import { tenantKey } from "../../core/tenant.ts";
import type { ChannelProfiles } from "../../profiles/channel-profiles.ts";
import type { ScopeLimit } from "../../store/budget-limits.ts";
import type { BudgetStore } from "../../store/budget-store.ts";

/** Where a channel's daily limit comes from, in the order runs apply them. */
export type ChannelLimitOrigin = "admin" | "profile" | "default profile" | "default";

export interface ChannelLimit extends ScopeLimit {
  origin: ChannelLimitOrigin;
}

/**
 * The daily limit a run in `channelId` of `teamId` is held to, as the budget guard applies it: the
 * `/hermes budget #channel` override, else the `tokens_per_day` of the profile its runs get (its own,
 * else the default profile), else HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY. A direct message is charged
 * to its requester only (`budgetChannel`), so no profile's budget is read for one.
 */
export async function channelLimit(
  budgets: Pick<BudgetStore, "limit">,
  profiles: ChannelProfiles | undefined,
  channelId: string,
  teamId: string | undefined,
): Promise<ChannelLimit> {
  const [limit, effective] = await Promise.all([
    budgets.limit("channel", channelId, tenantKey(teamId)),
    budgetChannel(channelId) ? profiles?.forChannel(channelId, teamId) : undefined,
  ]);
  if (limit.overridden) return { ...limit, origin: "admin" };
  const fromProfile = effective?.profile.tokensPerDay;
  if (effective && fromProfile !== undefined)
    return {
      tokensPerDay: fromProfile,
      overridden: false,
      origin: effective.source === "default" ? "default profile" : "profile",
    };
  return { ...limit, origin: "default" };
}

/** `set by an admin`, `from this channel's profile`, `from the default profile` or `the default`. */
export function describeChannelOrigin(origin: ChannelLimitOrigin): string {
  switch (origin) {
    case "admin":
      return "set by an admin";
    case "profile":
      return "from this channel's profile";
    case "default profile":
      return "from the default profile";
    case "default":
      return "the default";
  }
}
