/**
 * Small index-based helpers the special-token formats share: finding the next of several spellings of
 * a marker without rescanning, matching a marker at a position, and assembling the prose left around
 * the calls. Everything here is linear in the text.
 */

export interface MarkerHit {
  /** Index of the marker's first character. */
  at: number;
  /** Length of the spelling found. */
  length: number;
}

/**
 * A finder for the earliest of several spellings of one marker at or after a position. Each spelling's
 * next occurrence is remembered and searched again only once the scan has passed it, so a whole
 * left-to-right scan costs one pass per spelling. Positions asked for must never decrease.
 */
export function markerFinder(
  text: string,
  spellings: readonly string[],
): (from: number) => MarkerHit | undefined {
  const next = spellings.map(() => -2);
  return (from) => {
    let best: MarkerHit | undefined;
    for (let i = 0; i < spellings.length; i++) {
      const spelling = spellings[i]!;
      let at = next[i]!;
      if (at !== -1 && at < from) {
        at = text.indexOf(spelling, from);
        next[i] = at;
      }
      if (at >= 0 && (best === undefined || at < best.at)) best = { at, length: spelling.length };
    }
    return best;
  };
}

/** The earlier of two hits (either may be missing). */
export function earliest(a: MarkerHit | undefined, b: MarkerHit | undefined): MarkerHit | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.at <= b.at ? a : b;
}

/** The length of the spelling of a marker that starts exactly at `pos`, or 0 when none does. */
export function markerAt(text: string, pos: number, spellings: readonly string[]): number {
  for (const spelling of spellings) if (text.startsWith(spelling, pos)) return spelling.length;
  return 0;
}

/** The index of the first non-whitespace character at or after `pos` (or `end`). */
export function skipSpace(text: string, pos: number, end = text.length): number {
  let i = pos;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Whitespace as models write it between tokens (ASCII blanks and the no-break space). */
export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 12 || c === 11 || c === 0xa0;
}

/** Past a code-fence opener at `pos` (```json, ```), or `pos` itself when none starts there. */
export function skipFenceOpener(text: string, pos: number): number {
  if (!text.startsWith("```", pos)) return pos;
  let i = pos + 3;
  while (i < text.length && isLetter(text.charCodeAt(i))) i++;
  return i;
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}

/**
 * The prose left once calls and their markers are cut out: the pieces between them, each trimmed,
 * the non-empty ones joined by a line break (markers often sit flush against the words around them).
 */
export function joinProse(pieces: readonly string[]): string {
  const kept: string[] = [];
  for (const piece of pieces) {
    const t = piece.trim();
    if (t !== "") kept.push(t);
  }
  return kept.join("\n");
}
