/**
 * What tool names are made of, for the formats that find where a name ends by its characters. One
 * rule for names read by scanning, one for names read between delimiters.
 */

/** Letters, digits, `_`, `-` and `.`: tool names (and Mistral's call ids). */
export function isNameChar(c: number): boolean {
  const lower = c | 32;
  return (lower >= 97 && lower <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46;
}

/** A name character, `:` or `/`: names written with a namespace or an index (`functions.get_weather:0`). */
export function isQualifiedNameChar(c: number): boolean {
  return isNameChar(c) || c === 58 /* : */ || c === 47 /* / */;
}

/** Where the run of characters `is` accepts from `from` ends, looking at most `max` characters on. */
export function runEnd(text: string, from: number, is: (c: number) => boolean, max = text.length): number {
  const limit = Math.min(text.length, from + max);
  let i = from;
  while (i < limit && is(text.charCodeAt(i))) i++;
  return i;
}

/**
 * True when a name read between delimiters (`<function=NAME>`, `<tool_call>NAME<arg_key>`) holds a
 * character no tool name has: blanks, quotes, brackets, braces, `<`, `>` or `,`. A Jinja leftover
 * (`{{ tc.name }}`), JSON or a sentence in that place is not a name.
 */
export function hasNonNameChar(name: string): boolean {
  return /[{}[\]<>"'\s,]/.test(name);
}
