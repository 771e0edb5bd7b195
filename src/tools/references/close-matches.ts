/** Names longer than this are not compared letter by letter (keeps a hostile input cheap). */
const MAX_COMPARED = 64;

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
    const distance = editDistance(key, other);
    const allowed = Math.max(1, Math.floor(Math.max(key.length, other.length) / 3));
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

/** Levenshtein distance over code points (so 李明 is two letters, not four bytes). */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[y.length]!;
}
