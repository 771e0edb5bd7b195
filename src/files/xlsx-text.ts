import ExcelJS from "exceljs";
import { capText } from "./cap-text.ts";
import type { ParsedText } from "./parse-messages.ts";
import { MAX_SHEET_ROWS, plural, renderSheet } from "./sheet-table.ts";

/** A workbook's sheets, each as its name and its first rows as CSV lines (values, not formulas). */
export async function xlsxText(bytes: Uint8Array, maxChars: number): Promise<ParsedText> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as never, {
    ignoreNodes: ["dataValidations", "conditionalFormatting", "extLst", "drawing", "legacyDrawing"],
  });
  const parts: string[] = [];
  let rowsInAll = 0;
  for (const sheet of workbook.worksheets) {
    const rows: string[][] = [];
    let totalRows = 0;
    let totalColumns = 0;
    sheet.eachRow({ includeEmpty: false }, (row) => {
      totalRows += 1;
      const values = row.values as unknown[];
      totalColumns = Math.max(totalColumns, values.length - 1);
      if (rows.length < MAX_SHEET_ROWS) rows.push(values.slice(1).map(cellText));
    });
    rowsInAll += totalRows;
    parts.push(renderSheet({ name: sheet.name, rows, totalRows, totalColumns }));
  }
  const detail = `${plural(workbook.worksheets.length, "sheet")}, ${plural(rowsInAll, "row")}`;
  return { ...capText(parts.join("\n"), maxChars), detail };
}

/** What a cell shows: a formula's last result, rich text's plain text, a date as ISO. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) {
    const iso = Number.isNaN(value.getTime()) ? "" : value.toISOString();
    return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
  }
  if (typeof value !== "object") return String(value);
  if ("result" in value) return cellText(value.result);
  if ("richText" in value && Array.isArray(value.richText))
    return value.richText.map((run: { text?: unknown }) => String(run.text ?? "")).join("");
  if ("text" in value) return cellText(value.text);
  if ("error" in value) return String(value.error);
  if ("formula" in value || "sharedFormula" in value) return "";
  return "";
}
