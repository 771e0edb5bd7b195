import { type CsvColumn, toCsv } from "../core/csv.ts";
import type { AuditRow } from "./audit-chain.ts";

export type AuditFormat = "table" | "csv" | "json";

const CSV_COLUMNS = [
  ["id", (r) => r.id],
  ["created_at", (r) => r.createdAt],
  ["action", (r) => r.action],
  ["tool", (r) => r.tool],
  ["user_id", (r) => r.userId],
  ["actor_id", (r) => r.actorId],
  ["team_id", (r) => r.teamId],
  ["channel_id", (r) => r.channelId],
  ["thread_ts", (r) => r.threadTs],
  ["run_id", (r) => r.runId],
  ["tool_call_id", (r) => r.toolCallId],
  ["approval_id", (r) => r.approvalId],
  ["args", (r) => (r.args === null ? null : JSON.stringify(r.args))],
  ["args_sha256", (r) => r.argsSha256],
  ["result_summary", (r) => r.resultSummary],
  ["error", (r) => r.error],
  ["duration_ms", (r) => r.durationMs],
  ["prev_hash", (r) => r.prevHash],
  ["hash", (r) => r.hash],
] as const satisfies readonly CsvColumn<AuditRow>[];

/** Every column, as CSV (`toCsv`: formulas defused). */
export function auditRowsToCsv(rows: AuditRow[]): string {
  return toCsv(CSV_COLUMNS, rows);
}

const TABLE_COLUMNS: [string, (r: AuditRow) => string][] = [
  ["ID", (r) => String(r.id)],
  ["TIME (UTC)", (r) => r.createdAt.slice(0, 19).replace("T", " ")],
  ["ACTION", (r) => r.action.replace(/^tool\./, "")],
  ["TOOL", (r) => r.tool],
  ["USER", (r) => r.userId ?? ""],
  ["ACTOR", (r) => r.actorId ?? ""],
  ["CHANNEL", (r) => r.channelId ?? ""],
  ["MS", (r) => (r.durationMs === null ? "" : String(r.durationMs))],
  [
    "DETAIL",
    (r) => (r.error ? `error: ${r.error}` : (r.resultSummary ?? (r.args ? JSON.stringify(r.args) : ""))),
  ],
];
const MAX_CELL = 60;

/** A plain-text table for a terminal: one line per row, long cells cut with "…". */
export function auditRowsToTable(rows: AuditRow[]): string {
  if (rows.length === 0) return "(no audit rows match)\n";
  const cells = rows.map((row) => TABLE_COLUMNS.map(([, get]) => oneLine(get(row))));
  const headers = TABLE_COLUMNS.map(([name]) => name);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]?.length ?? 0)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[line(headers), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n")}\n`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat;
}
