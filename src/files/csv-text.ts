import { Readable } from "node:stream";
import ExcelJS from "exceljs";
import { capText } from "./cap-text.ts";
import { decodeText } from "./decode-text.ts";
import type { ParsedText } from "./parse-messages.ts";
import { MAX_SHEET_ROWS, plural, renderSheet } from "./sheet-table.ts";

/**
 * A CSV file as its first rows (parsed by exceljs's CSV reader, cells kept as written) and its row
 * count. Only the rows shown are parsed into memory; the rest are counted. Text that doesn't parse as
 * CSV is still text: it is given as written.
 */
export async function csvText(
  bytes: Uint8Array,
  tabSeparated: boolean,
  maxChars: number,
): Promise<ParsedText> {
  const text = decodeText(bytes);
  if (text === undefined) throw new Error("the bytes are not UTF-8 or UTF-16 text");
  try {
    return await csvTable(text, guessDelimiter(text, tabSeparated), maxChars);
  } catch {
    return capText(text, maxChars);
  }
}

async function csvTable(text: string, delimiter: string, maxChars: number): Promise<ParsedText> {
  const workbook = new ExcelJS.Workbook();
  const sheet = await workbook.csv.read(Readable.from([text]), {
    map: (cell: unknown) => cell,
    parserOptions: { delimiter, ignoreEmpty: true, maxRows: MAX_SHEET_ROWS },
  } as never);
  const rows: string[][] = [];
  let totalColumns = 0;
  sheet.eachRow({ includeEmpty: false }, (row) => {
    const values = (row.values as unknown[]).slice(1).map((cell) => (cell === undefined ? "" : String(cell)));
    totalColumns = Math.max(totalColumns, values.length);
    rows.push(values);
  });
  const totalRows = rows.length < MAX_SHEET_ROWS ? rows.length : Math.max(rows.length, countRecords(text));
  const rendered = renderSheet({ rows, totalRows, totalColumns });
  return { ...capText(rendered, maxChars), detail: plural(totalRows, "row") };
}

/** Records in CSV text: line ends outside quotes, not counting blank lines. */
export function countRecords(text: string): number {
  let records = 0;
  let quoted = false;
  let blank = true;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 34) quoted = !quoted;
    if (code === 10 && !quoted) {
      if (!blank) records += 1;
      blank = true;
    } else if (code !== 13) {
      blank = false;
    }
  }
  return blank ? records : records + 1;
}

/** The separator the first line uses most among comma, semicolon and tab (a `.tsv` name says tab). */
export function guessDelimiter(text: string, tabByName: boolean): string {
  if (tabByName) return "\t";
  const firstLine = text.slice(0, Math.min(text.length, 64 * 1024)).split("\n", 1)[0] ?? "";
  const counts = [",", ";", "\t"].map((delimiter) => ({
    delimiter,
    count: firstLine.split(delimiter).length,
  }));
  counts.sort((a, b) => b.count - a.count);
  return counts[0]?.count && counts[0].count > 1 ? counts[0].delimiter : ",";
}
