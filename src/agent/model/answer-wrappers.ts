/**
 * Tags some families wrap their whole answer in, which their server's reasoning parser takes off:
 * Hunyuan A13B's `<answer>…</answer>` and ERNIE 4.5's `<response>…</response>` (after `</think>`).
 */
const ANSWER_TAG = /^<(answer|response)>/i;

/**
 * The answer without the one tag that wraps all of it (`<answer>\nHello\n</answer>` → `Hello`); an
 * unclosed one (the answer cut off) is taken off too. Text that only starts or ends with such a tag,
 * or holds another one inside, is left as it is.
 */
export function unwrapAnswer(text: string): string {
  const t = text.trim();
  const open = ANSWER_TAG.exec(t);
  if (!open) return text;
  const tag = open[1]!.toLowerCase();
  const close = `</${tag}>`;
  const closed = t.toLowerCase().endsWith(close);
  const inner = t.slice(open[0].length, closed ? t.length - close.length : t.length);
  const lower = inner.toLowerCase();
  if (lower.includes(`<${tag}>`) || lower.includes(close)) return text;
  return inner.trim();
}

/** A tag pair with nothing but blanks inside (`<function_calls>\n</function_calls>`). */
const EMPTY_PAIR = /<([A-Za-z][\w:.-]{0,47})(?:[ \t][^<>\n]{0,256})?>\s*<\/\1>/g;

/** A code fence with nothing inside (the fence a call was written in, once the call is read). */
const EMPTY_FENCE = /```[\w-]{0,24}[ \t]*\n?\s*```/g;

/**
 * The prose left beside calls read out of it, without the wrappers that held them
 * (`<function_calls>\n</function_calls>` once the `<invoke>` inside was taken out, or an emptied
 * fence). Bounded: a few rounds for nested wrappers.
 */
export function withoutEmptyWrappers(prose: string): string {
  let text = prose;
  for (let round = 0; round < 4 && (text.includes("</") || text.includes("```")); round++) {
    const next = text.replace(EMPTY_PAIR, "").replace(EMPTY_FENCE, "");
    if (next === text) break;
    text = next;
  }
  return text === prose ? prose : text.trim();
}
