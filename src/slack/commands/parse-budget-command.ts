import type { BudgetScopeKind } from "../../agent/token-budget.ts";
import { parseTokenAmount } from "../../token-amount.ts";
import { parseChannelRef, parseUserRef } from "../../tools/slack-port.ts";

/** `/hermes budget`: show the limits, or set (a number; 0 = no limit) or clear (null) one scope's limit. */
export type BudgetCommand =
  | { kind: "show" }
  | { kind: "set"; scope: BudgetScopeKind; id: string; tokensPerDay: number | null };

export type ParsedBudgetCommand = { ok: true; command: BudgetCommand } | { ok: false; error: string };

export const BUDGET_USAGE =
  "Write `/hermes budget @user 200k` or `/hermes budget #channel 1m` (a daily token count such as 200000, 200k or 1.5m; `off` or `default` goes back to the default), or `/hermes budget` alone to see the limits.";

// A token is a run of non-space text, where a Slack mention `<@U…|Li Ming>` may hold spaces.
const TOKEN = /(?:[^\s<]|<[^>]*>)+/g;

/** Parses the text after `/hermes budget`: nothing, or a `<@U…>`/`<#C…>` mention (or id) and an amount. */
export function parseBudgetCommand(args: string): ParsedBudgetCommand {
  const tokens = args.trim().match(TOKEN) ?? [];
  if (tokens.length === 0) return { ok: true, command: { kind: "show" } };
  if (tokens.length !== 2) return fail(`That is not a budget change. ${BUDGET_USAGE}`);
  const [who, amount] = tokens as [string, string];
  const user = parseUserRef(who);
  const channel = user ? undefined : parseChannelRef(who);
  if (!user && !channel)
    return fail(
      `\`${who.slice(0, 40)}\` is not a user or a channel: pick them from Slack's @ or # menu so they are linked. ${BUDGET_USAGE}`,
    );
  const cleared = /^(off|default)$/i.test(amount);
  const tokensPerDay = cleared ? null : parseTokenAmount(amount);
  if (tokensPerDay === undefined)
    return fail(`\`${amount.slice(0, 40)}\` is not a token count. ${BUDGET_USAGE}`);
  const scope: BudgetScopeKind = user ? "user" : "channel";
  return { ok: true, command: { kind: "set", scope, id: (user ?? channel)!, tokensPerDay } };
}

function fail(error: string): ParsedBudgetCommand {
  return { ok: false, error };
}
