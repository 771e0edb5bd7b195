/** Extracted text cut to a character budget, and whether anything was cut. */
export interface CappedText {
  text: string;
  truncated: boolean;
  /** Characters extracted before the cut. */
  chars: number;
}

/** Keeps the first `max` characters, never ending on half of a surrogate pair. */
export function capText(text: string, max: number, alreadyTruncated = false): CappedText {
  if (text.length <= max) return { text, truncated: alreadyTruncated, chars: text.length };
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true, chars: text.length };
}
