/** One measured figure: which benchmark, what, the value as printed, and its target if any. */
export interface ReportRow {
  bench: string;
  measure: string;
  value: string;
  target?: string;
}

/** The rows as one aligned text table. */
export function formatTable(rows: ReportRow[]): string {
  const head: ReportRow = { bench: "benchmark", measure: "measure", value: "value", target: "target" };
  const all = [head, ...rows];
  const width = (k: keyof ReportRow) => Math.max(...all.map((r) => (r[k] ?? "").length));
  const w = { bench: width("bench"), measure: width("measure"), value: width("value") };
  const line = (r: ReportRow) =>
    `${r.bench.padEnd(w.bench)}  ${r.measure.padEnd(w.measure)}  ${r.value.padStart(w.value)}  ${r.target ?? ""}`.trimEnd();
  const rule = "-".repeat(w.bench + w.measure + w.value + 6 + width("target"));
  return [line(head), rule, ...rows.map(line)].join("\n");
}
