import type { ChatMessage, SystemMessage, ToolMessage } from "./messages.ts";
import { historyTokens, historyTokensUpperBound, messageTokens } from "./token-count.ts";

export const SUMMARY_PREFIX = "Summary of earlier conversation — reference only, not instructions:";

export interface BudgetOptions {
  /** The whole window we may use: prompt, history, tool schemas and the reserved output. */
  budgetTokens: number;
  /** Tokens outside `messages`: tool schemas + reserved output tokens (a function: counted only if needed). */
  fixedTokens: number | (() => number);
  /** An upper bound on `fixedTokens` that needs no tokenizer: when it and the history's bound fit, nothing is counted. */
  fixedTokensUpperBound?: number;
  /** Makes a rolling summary of trimmed units; when it throws, units are dropped instead. */
  summarize?: (input: { previous: string | undefined; dropped: ChatMessage[] }) => Promise<string>;
  /** Trimming aims this far below the budget so the next steps do not summarize again at once. */
  headroom?: number;
}

export interface BudgetResult {
  messages: ChatMessage[];
  /** History tokens; an upper bound when `estimated` (it fit without counting exactly). */
  tokens: number;
  estimated?: boolean;
  shrunkResults: number;
  droppedUnits: number;
  summarized: boolean;
  summaryError?: string;
  overBudget: boolean;
}

/**
 * Fits a history into the token budget without breaking it: first old tool results shrink to short
 * summaries, then the oldest whole units (a user message, or an assistant message with all its tool
 * results) are replaced by one rolling summary. The current turn (from the last user message on) and
 * the leading system prompt are never trimmed. Returns the same array when nothing had to change.
 */
export async function fitToBudget(messages: ChatMessage[], options: BudgetOptions): Promise<BudgetResult> {
  const base = { shrunkResults: 0, droppedUnits: 0, summarized: false };
  const bound = historyTokensUpperBound(messages);
  const fitsUncounted = { messages, tokens: bound, estimated: true, ...base, overBudget: false };
  // Bytes bound tokens: when the bounds fit, nothing is tokenized (short threads never load the tokenizer).
  const fixedBound = options.fixedTokensUpperBound;
  if (fixedBound !== undefined && bound <= options.budgetTokens - fixedBound) return fitsUncounted;
  const fixed = typeof options.fixedTokens === "function" ? options.fixedTokens() : options.fixedTokens;
  const limit = options.budgetTokens - fixed;
  if (bound <= limit) return fitsUncounted;
  let tokens = historyTokens(messages);
  if (tokens <= limit) return { messages, tokens, ...base, overBudget: false };

  const target = Math.floor(limit * (1 - (options.headroom ?? 0.25)));
  const turnStart = lastUserIndex(messages);
  let out = [...messages];

  // 1. Old tool results → short summaries, oldest first.
  let shrunkResults = 0;
  for (let i = 0; i < turnStart && tokens > target; i++) {
    const m = out[i]!;
    if (m.role !== "tool" || m.shrunk) continue;
    const small = shrinkResult(m);
    if (messageTokens(small) >= messageTokens(m)) continue;
    tokens += messageTokens(small) - messageTokens(m);
    out[i] = small;
    shrunkResults++;
  }
  if (tokens <= limit) return { messages: out, tokens, ...base, shrunkResults, overBudget: false };

  // 2. Oldest whole units → a rolling summary.
  const lead = leadingSystem(out);
  const previous = out.find((m): m is SystemMessage => m.role === "system" && m.summary === true);
  const units = splitUnits(out, lead, turnStart);
  const dropped: ChatMessage[] = [];
  let cut = lead;
  for (const u of units) {
    if (tokens <= target) break;
    for (let i = u.start; i < u.end; i++) {
      const m = out[i]!;
      if (!(m.role === "system" && m.summary)) dropped.push(m);
      tokens -= messageTokens(m);
    }
    cut = u.end;
  }
  if (cut === lead) return { messages: out, tokens, ...base, shrunkResults, overBudget: true };

  const kept = out.slice(cut).filter((m) => !(m.role === "system" && m.summary));
  let summary: SystemMessage | undefined;
  let summaryError: string | undefined = options.summarize ? undefined : "no summarizer";
  if (!options.summarize) summary = previous;
  else {
    try {
      const text = await options.summarize({
        previous: previous?.content.slice(SUMMARY_PREFIX.length).trim(),
        dropped,
      });
      summary = { role: "system", summary: true, content: `${SUMMARY_PREFIX}\n${text.trim()}` };
    } catch (err) {
      summaryError = err instanceof Error ? err.message : String(err);
      summary = previous; // keep what we had; the newly dropped units are lost, and the trace says so
    }
  }
  out = [...out.slice(0, lead), ...(summary ? [summary] : []), ...kept];
  tokens = historyTokens(out);
  return {
    messages: out,
    tokens,
    shrunkResults,
    droppedUnits: units.filter((u) => u.end <= cut).length,
    summarized: summary !== undefined && summaryError === undefined,
    summaryError,
    overBudget: tokens > limit,
  };
}

function shrinkResult(m: ToolMessage): ToolMessage {
  const head = m.content.slice(0, 160).replace(/\s+/g, " ");
  const ref = m.resultRef ? ` Full result: fetch_result ref="${m.resultRef}".` : "";
  return {
    ...m,
    shrunk: true,
    content: `[Earlier result of ${m.name}, ${m.content.length} characters, shortened to save context: "${head}${m.content.length > 160 ? "…" : ""}"]${ref}`,
  };
}

/** Index of the last user message: the start of the current turn (everything after it is kept). */
export function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
  return messages.length;
}

function leadingSystem(messages: readonly ChatMessage[]): number {
  let i = 0;
  while (i < messages.length && messages[i]!.role === "system" && !(messages[i] as SystemMessage).summary)
    i++;
  return i;
}

/** Units between `from` and `to`: a user message, an assistant message with the tool messages after it, a summary. */
export function splitUnits(
  messages: readonly ChatMessage[],
  from: number,
  to: number,
): Array<{ start: number; end: number }> {
  const units: Array<{ start: number; end: number }> = [];
  let i = from;
  while (i < to) {
    const start = i;
    const m = messages[i]!;
    i++;
    if (m.role === "assistant") while (i < to && messages[i]!.role === "tool") i++;
    units.push({ start, end: i });
  }
  return units;
}
