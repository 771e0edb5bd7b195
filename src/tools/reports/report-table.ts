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

/** RFC 4180 CSV with a header row; fields quoted only when they need it. */
export function countsCsv(column: string, rows: GroupCount[]): string {
  const field = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = [`${field(column)},tickets`, ...rows.map((r) => `${field(r.key)},${r.count}`)];
  return lines.map((line) => `${line}\r\n`).join("");
}
