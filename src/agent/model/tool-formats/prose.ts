/** A span of the text that belongs to a call or its markers (start inclusive, end exclusive). */
export interface Span {
  start: number;
  end: number;
}

/**
 * The prose left once the calls and their markers are cut out: the text outside the spans (sorted,
 * not overlapping), each piece trimmed, the non-empty ones joined by a line break (markers often sit
 * flush against the words around them); "" when only whitespace is left.
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
