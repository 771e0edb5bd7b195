import type { BudgetScopeKind } from "../../agent/budget/token-budget.ts";
import { readTokenAmount } from "../../core/token-amount.ts";
import { parseChannelRef, parseUserRef } from "../../tools/slack-port.ts";

/**
 * `/hermes budget`: show the limits, or set (a token amount, `src/core/token-amount.ts`; 0 = no limit) or clear (null) one scope's
 * limit, for a user or channel given as a mention or id (`set`) or by name (`set_named`: `@li.ming`,
 * `"Li Ming"`, `#general`, for the caller to look up as `/hermes runs user:` does).
 */
export type BudgetCommand =
  | { kind: "show" }
  | { kind: "set"; scope: BudgetScopeKind; id: string; tokensPerDay: number | null }
  | { kind: "set_named"; name: string; tokensPerDay: number | null };

export type ParsedBudgetCommand = { ok: true; command: BudgetCommand } | { ok: false; error: string };

export const BUDGET_USAGE =
  "Write `/hermes budget @user 200k` or `/hermes budget #channel 1m` (a daily token count such as 200000, 200_000, 200k or 1.5m; `0` means no limit, `off` or `default` goes back to the default), `/hermes budget #channel` to see the limit that applies there, or `/hermes budget` alone to see the limits.";

// A token is a run of non-space text, where a Slack mention `<@U…|Li Ming>` may hold spaces.
const TOKEN = /(?:[^\s<]|<[^>]*>)+/g;

/**
 * Parses the text after `/hermes budget`: nothing, or who and an amount (the last word). Who is a
 * `<@U…>`/`<#C…>` mention or an id, or a name, which may hold spaces (`Li Ming 200k`, quotes
 * optional); a mention followed by more words is not a budget change.
 */
export function parseBudgetCommand(args: string): ParsedBudgetCommand {
  const tokens = args.trim().match(TOKEN) ?? [];
  if (tokens.length === 0) return { ok: true, command: { kind: "show" } };
  if (tokens.length < 2) return fail(`That is not a budget change. ${BUDGET_USAGE}`);
  const amount = tokens.at(-1)!;
  const whoTokens = tokens.slice(0, -1);
  if (whoTokens.length > 1 && whoTokens.some((t) => t.includes("<")))
    return fail(`That is not a budget change. ${BUDGET_USAGE}`);
  const cleared = /^(off|default)$/i.test(amount);
  const read = cleared ? undefined : readTokenAmount(amount);
  if (read && !read.ok) {
    const why = read.problem ? `: ${read.problem}.` : ".";
    return fail(`\`${amount.slice(0, 40)}\` is not a token count${why} ${BUDGET_USAGE}`);
  }
  const tokensPerDay = read?.ok ? read.tokens : null;
  const who = whoTokens.join(" ");
  const user = parseUserRef(who);
  const channel = user ? undefined : parseChannelRef(who);
  if (user || channel) {
    const scope: BudgetScopeKind = user ? "user" : "channel";
    return { ok: true, command: { kind: "set", scope, id: (user ?? channel)!, tokensPerDay } };
  }
  const name = who.replace(/^["“](.*)["”]$/, "$1").trim();
  if (!name || who.startsWith("<"))
    return fail(`\`${who.slice(0, 40)}\` is not a user or a channel. ${BUDGET_USAGE}`);
  return { ok: true, command: { kind: "set_named", name, tokensPerDay } };
}

function fail(error: string): ParsedBudgetCommand {
  return { ok: false, error };
}
