/**
 * Whether a call starting at `at` stands where models write calls: at the start of the text or of a
 * line, after the end of a sentence (`.`, `!`, `?`) or after a tag or token (`>`, `]`, `)`, `|`, `｜`).
 * Special tokens (`<|…|>`, `<｜…｜>`) are never prose, so they stand anywhere.
 */
export function leadsIn(text: string, at: number): boolean {
  if (text.startsWith("<|", at) || text.startsWith("<｜", at)) return true;
  let i = at - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\t")) i--;
  return i < 0 || ".!?>])|｜\n\r<".includes(text[i]!);
}
