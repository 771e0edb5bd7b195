import { DATA_TABLE } from "./native-block-limits.ts";

export type TableValue = string | number;

/** Slack's `data_table` block (the JSON @slack/types 3.2 gives it; tools do not import Slack). */
export interface DataTableBlock {
  type: "data_table";
  caption: string;
  rows: TableCell[][];
  page_size?: number;
  block_id?: string;
}

export type TableCell =
  | { type: "raw_text"; text: string }
  | { type: "raw_number"; value: number; text: string };

export interface TableData {
  /** The table's caption (screen readers; Slack requires it). */
  caption: string;
  columns: string[];
  rows: TableValue[][];
  /** Rows per page (Slack's default is 5). */
  pageSize?: number;
}

/**
 * A sortable `data_table` block, or undefined when the table is beyond Slack's limits (more than 100
 * rows or 20 columns, more than 10,000 characters of cells, ragged rows, none at all): the caller then
 * shows it another way (a CSV file). Numbers are `raw_number` cells, so Slack sorts them as numbers;
 * an empty cell is a dash (Slack refuses empty text).
 */
export function dataTableBlock(data: TableData): DataTableBlock | undefined {
  const { caption, columns, rows } = data;
  if (columns.length === 0 || columns.length > DATA_TABLE.maxColumns) return undefined;
  if (rows.length === 0 || rows.length > DATA_TABLE.maxRows) return undefined;
  if (rows.some((r) => r.length !== columns.length)) return undefined;
  const text = (v: TableValue) => (typeof v === "number" ? v.toLocaleString("en-US") : v.trim() || "–");
  const header = columns.map((c): TableCell => ({ type: "raw_text", text: text(c) }));
  const body = rows.map((r) =>
    r.map(
      (v): TableCell =>
        typeof v === "number" && Number.isFinite(v)
          ? { type: "raw_number", value: v, text: text(v) }
          : { type: "raw_text", text: text(String(v)) },
    ),
  );
  const block: DataTableBlock = {
    type: "data_table",
    caption: caption.trim() || "Table",
    rows: [header, ...body],
    page_size: Math.min(Math.max(1, data.pageSize ?? 10), DATA_TABLE.maxPageSize),
  };
  return tableChars(block) <= DATA_TABLE.maxChars ? block : undefined;
}

/** The characters a table's cells hold, as Slack counts them against its 10,000. */
export function tableChars(block: Pick<DataTableBlock, "rows">): number {
  return block.rows.reduce((n, row) => n + row.reduce((m, cell) => m + cell.text.length, 0), 0);
}
