import { tenantKey } from "../../core/tenant.ts";
import { formatTokens } from "../../core/token-amount.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import type { BudgetStore, ScopeUsage } from "../../store/budget-store.ts";
import { type AccessDeps, accessSourcesOf } from "../access-deps.ts";
import { BUDGETS_DISABLED, describeLimit } from "./budget-answer.ts";
import { channelLimit, describeChannelOrigin } from "./channel-budget-limit.ts";

const TOP = 5;

/**
 * `/hermes usage`: the caller's tokens today (against their daily limit) and this month, and this
 * channel's today (against the limit its runs are held to, and where that comes from when it is not
 * the default); admins also see the top users and channels of the day.
 */
export async function usageAnswer(
  s: AccessDeps & { budgets?: BudgetStore; storage: Pick<Storage, "profiles"> },
  input: { userId: string; channelId?: string | undefined; teamId?: string | undefined },
): Promise<string> {
  const budgets = s.budgets;
  if (!budgets) return BUDGETS_DISABLED;
  const [access, mine, channel, limit] = await Promise.all([
    resolveAccess(accessSourcesOf(s), input.userId),
    budgets.usage("user", input.userId, tenantKey(input.teamId)),
    input.channelId ? budgets.usage("channel", input.channelId, tenantKey(input.teamId)) : undefined,
    input.channelId ? channelLimit(budgets, s.storage.profiles, input.channelId, input.teamId) : undefined,
  ]);
  const lines = [
    `*Your token usage* (<@${input.userId}>)`,
    `• Today: ${today(mine)}`,
    `• This month: ${formatTokens(mine.month)} tokens`,
  ];
  if (channel && limit && input.channelId) {
    const from = limit.origin === "profile" || limit.origin === "default profile";
    const origin = from ? ` (${describeChannelOrigin(limit.origin)})` : "";
    lines.push(`• This channel (<#${input.channelId}>) today: ${today({ ...channel, ...limit })}${origin}`);
  }
  if (access.level === "admin") {
    const team = tenantKey(input.teamId);
    const [users, channels] = await Promise.all([
      budgets.top("user", TOP, team),
      budgets.top("channel", TOP, team),
    ]);
    lines.push("", "*Top users today*", ...ranked(users, (id) => `<@${id}>`));
    lines.push("", "*Top channels today*", ...ranked(channels, (id) => `<#${id}>`));
  }
  return lines.join("\n");
}

/** `12,345 tokens of 200,000 a day (6%)`, plus what calls in flight hold. */
function today(u: ScopeUsage): string {
  const of =
    u.tokensPerDay > 0
      ? ` of ${formatTokens(u.tokensPerDay)} a day (${Math.min(100, Math.round((u.today / u.tokensPerDay) * 100))}%)`
      : ` (${describeLimit(u)})`;
  const held = u.reserved > 0 ? `, ${formatTokens(u.reserved)} more held by requests in progress` : "";
  return `${formatTokens(u.today)} tokens${of}${held}`;
}

function ranked(rows: Array<{ id: string; used: number }>, name: (id: string) => string): string[] {
  if (rows.length === 0) return ["• nobody yet"];
  return rows.map((r, i) => `${i + 1}. ${name(r.id)}: ${formatTokens(r.used)} tokens`);
}
