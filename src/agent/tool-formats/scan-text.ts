/**
 * Small index-based helpers shared by the marker formats: cached `indexOf` finders (so repeated
 * "where is the next X" questions stay linear over the whole text), whitespace skipping and the prose
 * left once the calls are cut out.
 */

/** A span of the text that belongs to a call or its markers (start inclusive, end exclusive). */
export interface Span {
  start: number;
  end: number;
}

/**
 * `indexOf(needle, from)` answered from a cache while `from` has not passed the last hit: asked with
 * growing `from`, the text is scanned at most once per finder, however many times it is asked.
 * `accept` (optional) rejects hits that are not structural (the search goes on after them).
 */
export function nextFinder(
  text: string,
  needle: string,
  accept?: (at: number) => boolean,
): (from: number) => number {
  let hit = -1; // the first accepted hit at or after `searchedFrom` (-1: none)
  let searchedFrom = Number.POSITIVE_INFINITY; // nothing searched yet
  return (from: number) => {
    if (from >= searchedFrom && (hit === -1 || hit >= from)) return hit;
    searchedFrom = from;
    let at = text.indexOf(needle, from);
    while (at !== -1 && accept && !accept(at)) at = text.indexOf(needle, at + needle.length);
    hit = at;
    return hit;
  };
}

/** True for the whitespace characters models put between tags (space, tab, CR, LF, FF, VT). */
export function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/** The first index at or after `i` that is not whitespace (the text's length when none). */
export function skipSpaces(text: string, i: number, limit = text.length): number {
  while (i < limit && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just after the whitespace that ends right before `i` (walks backwards). */
export function skipSpacesBack(text: string, i: number, floor = 0): number {
  while (i > floor && isSpace(text.charCodeAt(i - 1))) i--;
  return i;
}

/**
 * Widens a call's span over a wrapper tag written around it (`<tool_call>` before, `</tool_call>`
 * after, with only whitespace between), so the wrapper does not stay behind in the prose.
 */
export function widenOverWrapper(text: string, span: Span, open: string, close: string, floor: number): Span {
  let { start, end } = span;
  const before = skipSpacesBack(text, start, floor);
  if (before - open.length >= floor && text.startsWith(open, before - open.length))
    start = before - open.length;
  const after = skipSpaces(text, end);
  if (text.startsWith(close, after)) end = after + close.length;
  return { start, end };
}

/**
 * The text outside the spans (sorted, not overlapping): the pieces between them, each trimmed, the
 * non-empty ones joined by a line break (markers often sit flush against the words around them); ""
 * when only whitespace is left.
 */
export function proseOutside(text: string, spans: readonly Span[]): string {
  const pieces: string[] = [];
  const keep = (from: number, to: number) => {
    const piece = text.slice(from, to).trim();
    if (piece !== "") pieces.push(piece);
  };
  let at = 0;
  for (const span of spans) {
    if (span.start > at) keep(at, span.start);
    if (span.end > at) at = span.end;
  }
  keep(at, text.length);
  return pieces.join("\n");
}
