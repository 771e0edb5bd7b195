/**
 * Cached forward searches: "where is the next X at or after here", asked again and again by a
 * left-to-right scan, answered from the last hit until the scan passes it. A whole scan costs one
 * pass over the text per marker, however often it asks.
 */

/** Where the next marker is at or after a position; -1 when none is. */
export type Finder = (from: number) => number;

/**
 * `indexOf(needle, from)` answered from a cache while `from` has not passed the last hit (asked with
 * a smaller `from`, it searches again). `accept` (optional) rejects hits that are not structural: the
 * search goes on after them.
 */
export function nextFinder(text: string, needle: string, accept?: (at: number) => boolean): Finder {
  let hit = -1; // the first accepted hit at or after `searchedFrom` (-1: none)
  let searchedFrom = Number.POSITIVE_INFINITY; // nothing searched yet
  return (from) => {
    if (from >= searchedFrom && (hit === -1 || hit >= from)) return hit;
    searchedFrom = from;
    let at = text.indexOf(needle, from);
    while (at !== -1 && accept && !accept(at)) at = text.indexOf(needle, at + needle.length);
    hit = at;
    return hit;
  };
}

/** The earliest of several markers (or spellings of one), each with its own cached finder. */
export function anyFinder(text: string, needles: readonly string[]): Finder {
  const finders = needles.map((needle) => nextFinder(text, needle));
  return (from) => {
    let best = -1;
    for (const find of finders) {
      const at = find(from);
      if (at !== -1 && (best === -1 || at < best)) best = at;
    }
    return best;
  };
}

/** The smallest of some indexes, -1 standing for "not found" (-1 when all are). */
export function firstOf(...indexes: number[]): number {
  let best = -1;
  for (const i of indexes) if (i !== -1 && (best === -1 || i < best)) best = i;
  return best;
}
