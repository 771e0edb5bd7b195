import { stringify } from "csv-stringify/sync";

/** Rows shown per sheet and columns per row: enough to see what a table holds and ask about it. */
export const MAX_SHEET_ROWS = 500;
export const MAX_SHEET_COLUMNS = 50;
/** Characters one cell shows. */
const MAX_CELL_CHARS = 500;

export interface SheetTable {
  /** The sheet's name; a CSV file has none. */
  name?: string;
  /** The first rows (at most MAX_SHEET_ROWS), each a list of cell texts. */
  rows: string[][];
  totalRows: number;
  totalColumns: number;
}

/** One sheet as a heading and CSV lines, saying what was left out. */
export function renderSheet(sheet: SheetTable): string {
  const shownRows = sheet.rows.slice(0, MAX_SHEET_ROWS);
  const shownColumns = Math.min(sheet.totalColumns, MAX_SHEET_COLUMNS);
  const cut: string[] = [];
  if (sheet.totalRows > shownRows.length) cut.push(`first ${shownRows.length} rows shown`);
  if (sheet.totalColumns > shownColumns) cut.push(`first ${shownColumns} columns shown`);
  const size = `${plural(sheet.totalRows, "row")} × ${plural(sheet.totalColumns, "column")}`;
  const heading = `${sheet.name === undefined ? "## Table" : `## Sheet "${sheet.name}"`} (${[size, ...cut].join("; ")})`;
  const lines = shownRows.map((row) =>
    row
      .slice(0, shownColumns)
      .map((cell) => (cell.length > MAX_CELL_CHARS ? `${cell.slice(0, MAX_CELL_CHARS)}…` : cell)),
  );
  return `${heading}\n${lines.length === 0 ? "" : stringify(lines, { record_delimiter: "unix" })}`;
}

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
