const STOPWORDS = new Set(
  "a an and are about do does for how i in is it me my of on or our the this that to was we what when where who why you your".split(
    " ",
  ),
);
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * Search terms of a query: latin words (lower-case, stop words dropped) and, for unspaced CJK text,
 * its character pairs ("打印机在哪" → 打印, 印机, 机在, 在哪), so a question finds a fact worded otherwise.
 */
export function queryTerms(query: string): string[] {
  const text = query.normalize("NFKC").toLowerCase();
  const terms = new Set<string>();
  for (const word of text.replace(CJK, " ").split(/[^\p{L}\p{N}_.@-]+/u)) {
    const w = word.replace(/^[.@-]+|[.@-]+$/g, "");
    if (w.length >= 2 && !STOPWORDS.has(w)) terms.add(w);
  }
  for (const run of text.match(CJK) ?? []) {
    const chars = [...run];
    if (chars.length === 1) terms.add(run);
    for (let i = 0; i + 1 < chars.length; i++) terms.add(chars[i]! + chars[i + 1]!);
  }
  return [...terms];
}

/** How many of the terms occur in the fact (0 = not a match). */
export function matchScore(fact: string, terms: readonly string[]): number {
  const text = fact.normalize("NFKC").toLowerCase();
  return terms.reduce((n, t) => n + (text.includes(t) ? 1 : 0), 0);
}
