/** Names longer than this get no suggestions: longer ones are not names people type, and a hostile one stays cheap. */
const MAX_COMPARED = 32;

/**
 * Up to `limit` candidates whose key is close to `key`: one starts with the other, or they are a few
 * edits apart (at most a third of the longer key, at least 1). Closest first, ties in input order.
 */
export function closeMatches<T>(
  key: string,
  candidates: ReadonlyArray<{ key: string; item: T }>,
  limit = 3,
): T[] {
  if (!key || key.length > MAX_COMPARED) return [];
  // A person has several names (handle, display, real): each is scored, the best one counts.
  const best = new Map<T, { score: number; order: number }>();
  candidates.forEach(({ key: other, item }, order) => {
    if (!other || other.length > MAX_COMPARED) return;
    const prefix = other.startsWith(key) || key.startsWith(other);
    const allowed = Math.max(1, Math.floor(Math.max(key.length, other.length) / 3));
    // Lengths further apart than the edits allowed cannot match: skip the letter-by-letter work.
    if (!prefix && Math.abs(key.length - other.length) > allowed) return;
    if (!prefix && bagDistance(key, other) > allowed) return;
    const distance = editDistance(key, other, prefix ? 1 : allowed);
    if (!prefix && distance > allowed) return;
    const score = prefix ? Math.min(distance, 0.5) : distance;
    const kept = best.get(item);
    if (!kept || score < kept.score) best.set(item, { score, order: kept?.order ?? order });
  });
  return [...best.entries()]
    .sort(([, a], [, b]) => a.score - b.score || a.order - b.order)
    .slice(0, limit)
    .map(([item]) => item);
}

/**
 * A lower bound of the edit distance in linear time: letters one name has that the other lacks
 * (counted with repeats). Names sharing few letters are dropped before the quadratic comparison.
 */
function bagDistance(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const ch of a) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let onlyInB = 0;
  for (const ch of b) {
    const left = counts.get(ch) ?? 0;
    if (left > 0) counts.set(ch, left - 1);
    else onlyInB++;
  }
  let onlyInA = 0;
  for (const left of counts.values()) onlyInA += left;
  return Math.max(onlyInA, onlyInB);
}

/**
 * Levenshtein distance over code points (so 李明 is two letters, not four bytes), or `max + 1` as
 * soon as every path costs more than `max`: most names are far apart, and stop after a few letters.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  let current = new Array<number>(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [previous, current] = [current, previous];
  }
  return previous[y.length]!;
}
