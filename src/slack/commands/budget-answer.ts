import type { Logger } from "../../core/logger.ts";
import { tenantKey } from "../../core/tenant.ts";
import { formatTokens } from "../../core/token-amount.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import type { ScopeLimit } from "../../store/budget-limits.ts";
import type { BudgetStore } from "../../store/budget-store.ts";
import { parseChannelRef } from "../../tools/slack-port.ts";
import { type AccessDeps, accessSourcesOf } from "../access-deps.ts";
import type { SlackOutput } from "../slack-output.ts";
import { COMMAND_AUDIT_TOOL, recordRefusal } from "./admin-refusal.ts";
import { type ChannelLimit, channelLimit, describeChannelOrigin } from "./channel-budget-limit.ts";
import { type BudgetCommand, parseBudgetCommand } from "./parse-budget-command.ts";
import { resolveNamed } from "./resolve-named.ts";

export const BUDGET_REFUSAL = "Only admins can change token budgets.";
const BUDGET_EXAMPLE = "/hermes budget @li.ming 200k` or `/hermes budget #ops 1m";
export const BUDGETS_DISABLED = "Token budgets are not enabled on this Hermes.";

export interface BudgetServices extends AccessDeps {
  logger: Logger;
  /** `profiles`: a channel's limit may come from its profile's `tokens_per_day`. */
  storage: Pick<Storage, "users" | "audit" | "profiles">;
  slack: Pick<SlackOutput, "slack">;
  budgets?: BudgetStore;
}

export interface BudgetInput {
  userId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
}

/**
 * `/hermes budget` alone: the caller's and this channel's daily limits, for anyone. With arguments
 * (admins only, checked before they are read; a refusal is audited): sets or clears a user's or a
 * channel's limit, audited as `budget.changed` with {scope, id, tokens_per_day}. Who may be a
 * mention, an id or a name (`@li.ming`, `Li Ming`, `#general`), looked up in the workspace as
 * `/hermes runs user:` and the tools do; an unknown name gets their sentence with close matches.
 * `#channel` alone (admins) shows that channel's limit. A channel's limit is the one its runs are held
 * to, and says where it comes from: an admin's override, its profile, or the configured default.
 */
export async function budgetAnswer(s: BudgetServices, input: BudgetInput, args: string): Promise<string> {
  const budgets = s.budgets;
  if (!budgets) return BUDGETS_DISABLED;
  const access = await resolveAccess(accessSourcesOf(s), input.userId);
  if (args.trim() === "") return showLimits(s, budgets, input, access.level === "admin");
  if (access.level !== "admin") {
    await recordRefusal(s, { ...input, subcommand: "budget", reason: BUDGET_REFUSAL });
    return BUDGET_REFUSAL;
  }
  const shown = parseChannelRef(args.trim());
  if (shown) {
    const limit = await channelLimit(budgets, s.storage.profiles, shown, input.teamId);
    return `<#${shown}>'s daily token budget is ${describeChannelLimit(limit)}.`;
  }
  const parsed = parseBudgetCommand(args);
  if (!parsed.ok) return `:warning: ${parsed.error}`;
  if (parsed.command.kind === "show") return showLimits(s, budgets, input, true);
  const target = await budgetTarget(s.slack, parsed.command);
  if (!target.ok) return `:warning: ${target.error}`;
  const { scope, id, tokensPerDay } = target;
  const team = tenantKey(input.teamId);
  // The limit and its audit row are one transaction: a change is never made unaudited.
  await budgets.setLimit(
    { scope, id, tokensPerDay, by: input.userId, team },
    {
      action: "budget.changed",
      tool: COMMAND_AUDIT_TOOL,
      userId: input.userId,
      actorId: input.userId,
      teamId: input.teamId ?? null,
      channelId: input.channelId ?? null,
      args: { scope, id, tokens_per_day: tokensPerDay },
    },
  );
  s.logger.info({ userId: input.userId, scope, id, tokensPerDay }, "token budget changed");
  const whose = scope === "user" ? `<@${id}>'s` : `<#${id}>'s`;
  if (tokensPerDay !== null)
    return `${whose} daily token budget is now ${describeLimit({ tokensPerDay, overridden: true })}.`;
  if (scope === "user")
    return `${whose} daily token budget is back to the default: ${describeLimit(await budgets.limit(scope, id, team))}.`;
  const now = await channelLimit(budgets, s.storage.profiles, id, input.teamId);
  return now.origin === "default"
    ? `${whose} daily token budget is back to the default: ${describeLimit(now)}.`
    : `${whose} daily token budget is back to ${describeChannelLimit(now)}.`;
}

/** Whose limit a change names: a mention or id as it is, a name looked up in the workspace. */
async function budgetTarget(
  s: Pick<SlackOutput, "slack">,
  command: Exclude<BudgetCommand, { kind: "show" }>,
): Promise<
  | { ok: true; scope: "user" | "channel"; id: string; tokensPerDay: number | null }
  | { ok: false; error: string }
> {
  if (command.kind === "set") return { ok: true, ...command };
  const named = await resolveNamed(s.slack, command.name, "recipient", BUDGET_EXAMPLE);
  if (!named.ok) return named;
  return { ok: true, scope: named.resolved.type, id: named.resolved.id, tokensPerDay: command.tokensPerDay };
}

/** `200,000 tokens a day`, or `no limit`. */
export function describeLimit(limit: ScopeLimit): string {
  return limit.tokensPerDay > 0 ? `${formatTokens(limit.tokensPerDay)} tokens a day` : "no limit";
}

/** `200,000 tokens a day (from this channel's profile)`. */
function describeChannelLimit(limit: ChannelLimit): string {
  return `${describeLimit(limit)} (${describeChannelOrigin(limit.origin)})`;
}

const MAX_LISTED = 20;

/** The caller's and this channel's limits; for an admin also every limit an admin set in this team. */
async function showLimits(
  s: BudgetServices,
  budgets: BudgetStore,
  input: BudgetInput,
  admin: boolean,
): Promise<string> {
  const team = tenantKey(input.teamId);
  const [mine, channel, overrides] = await Promise.all([
    budgets.limit("user", input.userId, team),
    input.channelId ? channelLimit(budgets, s.storage.profiles, input.channelId, input.teamId) : undefined,
    admin ? budgets.overrides(MAX_LISTED, team) : [],
  ]);
  const set = overrides.map(
    (o) =>
      `• ${o.scope === "user" ? `<@${o.id}>` : `<#${o.id}>`}: ${describeLimit({ tokensPerDay: o.tokensPerDay, overridden: true })}`,
  );
  const origin = (l: ScopeLimit) => (l.overridden ? "set by an admin" : "the default");
  return [
    "*Daily token budgets* (a day is a UTC date; it resets at 00:00 UTC)",
    `• You (<@${input.userId}>): ${describeLimit(mine)} (${origin(mine)})`,
    ...(channel && input.channelId
      ? [`• This channel (<#${input.channelId}>): ${describeChannelLimit(channel)}`]
      : []),
    ...(admin ? ["", "*Set by admins*", ...(set.length ? set : ["• none: everyone has the default"])] : []),
    "",
    "Admins change them with `/hermes budget @user 200k` or `/hermes budget #channel 1m` (`off` goes back to the default). `/hermes budget #channel` shows a channel's. `/hermes usage` shows what was used.",
  ].join("\n");
}
