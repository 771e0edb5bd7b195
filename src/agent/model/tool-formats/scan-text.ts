/**
 * Index-based helpers every format scans with: whitespace, a marker written at a position, code
 * fences around a call's JSON. Each looks at a bounded stretch of the text, so loops built on them
 * stay linear.
 */

/** Whitespace as models write it between tokens and tags: ASCII blanks (9–13, space) and the no-break space. */
export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0;
}

/** The first index at or after `i` that is not whitespace (`limit` when none is before it). */
export function skipSpaces(text: string, i: number, limit = text.length): number {
  while (i < limit && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just after the whitespace that ends right before `i` (walks backwards, not below `floor`). */
export function skipSpacesBack(text: string, i: number, floor = 0): number {
  while (i > floor && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

/** The length of the spelling of a marker that starts exactly at `pos`, or 0 when none does. */
export function markerAt(text: string, pos: number, spellings: readonly string[]): number {
  for (const spelling of spellings) if (text.startsWith(spelling, pos)) return spelling.length;
  return 0;
}

const FENCE = "```";

/** Past a code-fence opener at `pos` (```json, ```), or `pos` itself when none starts there. */
export function skipFenceOpener(text: string, pos: number): number {
  if (!text.startsWith(FENCE, pos)) return pos;
  let i = pos + FENCE.length;
  while (i < text.length && isLetter(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Past the fence that closes a fenced JSON value ending at `pos` (blanks, then ```), or `pos` itself
 * when no fence follows: the closer belongs to the call, not to the prose.
 */
export function skipFenceCloser(text: string, pos: number): number {
  const at = skipSpaces(text, pos);
  return text.startsWith(FENCE, at) ? at + FENCE.length : pos;
}

function isLetter(c: number): boolean {
  return (c | 32) >= 97 && (c | 32) <= 122;
}
