import { splitText } from "../split-text.ts";

/** A table header (its header row and delimiter row) longer than this is not repeated. */
const HEADER_REPEAT_MAX = 1000;

/**
 * Splits Markdown into pieces of at most `max` characters (paragraphs, then lines, then words; code
 * fences closed and reopened, as `splitText` does). A table cut in two carries its header row and
 * delimiter row again at the top of the next piece, so each piece renders as a table with its column
 * names; such a piece may exceed `max` by that header (at most 1000 characters).
 */
export function splitMarkdown(text: string, max: number): string[] {
  const pieces = splitText(text, max);
  for (let i = 1; i < pieces.length; i++) {
    const header = openTableHeader(pieces[i - 1]!);
    const first = pieces[i]!.split("\n", 1)[0] ?? "";
    if (header && isTableRow(first) && !isDelimiterRow(pieces[i]!.split("\n", 2)[1] ?? "")) {
      pieces[i] = `${header}\n${pieces[i]}`;
    }
  }
  return pieces;
}

/** The header of the table a piece ends inside (its last line a table row), if short enough to repeat. */
function openTableHeader(piece: string): string | undefined {
  const lines = piece.trimEnd().split("\n");
  if (!isTableRow(lines.at(-1) ?? "")) return undefined;
  for (let j = lines.length - 1; j > 0; j--) {
    const line = lines[j]!;
    if (!isTableRow(line)) return undefined;
    if (isDelimiterRow(line) && isTableRow(lines[j - 1]!)) {
      const header = `${lines[j - 1]}\n${line}`;
      return header.length <= HEADER_REPEAT_MAX ? header : undefined;
    }
  }
  return undefined;
}

function isTableRow(line: string): boolean {
  return line.includes("|") && line.trim().length > 0;
}

function isDelimiterRow(line: string): boolean {
  return /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/.test(line) && line.includes("-");
}
