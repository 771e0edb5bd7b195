import { toCsv } from "../../core/csv.ts";
import type { GroupCount } from "./ticket-counts.ts";

/** A short Markdown table for the model: one row per group and a total. */
export function countsMarkdown(options: { caption: string; column: string; rows: GroupCount[] }): string {
  const { caption, column, rows } = options;
  const total = rows.reduce((n, r) => n + r.count, 0);
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  return [
    `${caption} (${total} in total):`,
    "",
    `| ${column} | tickets |`,
    "|---|---:|",
    ...rows.map((r) => `| ${cell(r.key)} | ${r.count} |`),
    `| **total** | **${total}** |`,
  ].join("\n");
}

/** One row per group, as CSV (`toCsv`: a ticket field that starts like a formula is defused). */
export function countsCsv(column: string, rows: GroupCount[]): string {
  return toCsv<GroupCount>(
    [
      [column, (r) => r.key],
      ["tickets", (r) => r.count],
    ],
    rows,
  );
}
