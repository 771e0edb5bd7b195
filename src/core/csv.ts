import { stringify } from "csv-stringify/sync";

/** One CSV column: its header and the cell a record gives (null is an empty cell). */
export type CsvColumn<T> = readonly [header: string, cell: (record: T) => string | number | null];

/**
 * The one CSV writer (audit exports, report files): RFC 4180 with CRLF line ends and a header row,
 * fields quoted only when they need it. The cells are text other people wrote (tool arguments, ticket
 * fields), so text starting like a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR, or their
 * full-width forms) gets a leading `'` and is shown as text, never run (CSV injection).
 */
export function toCsv<T>(columns: readonly CsvColumn<T>[], records: readonly T[]): string {
  const header = columns.map(([name]) => name);
  const rows = records.map((record) => columns.map(([, cell]) => cell(record)));
  return stringify([header, ...rows], {
    record_delimiter: "windows",
    // With a record delimiter given, csv-stringify quotes only cells holding that whole CRLF unless
    // told to: a lone LF or CR in a cell would otherwise end the row in a spreadsheet.
    quote_record_delimiter: true,
    escape_formulas: true,
  });
}
