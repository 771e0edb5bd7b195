import type { TargetResult } from "./evaluate-targets.ts";
import { type ScenarioResult, type Totals, totalsOf } from "./summarize.ts";

type Table = { head: string[]; rows: string[][] };

const pct = (v: number | null) => (v === null ? "–" : `${Math.round(v * 100)}%`);
const usd = (v: number | null) => (v === null ? "–" : `$${v.toFixed(4)}`);

/** What went wrong in a scenario's failed runs: each failed check once, with how many runs failed it. */
function failures(s: ScenarioResult): string {
  const seen = new Map<string, number>();
  for (const run of s.runs)
    for (const c of run.score.checks)
      if (!c.ok) {
        const text = `${c.name}: ${c.detail ?? "failed"}`;
        seen.set(text, (seen.get(text) ?? 0) + 1);
      }
  return [...seen].map(([t, n]) => (s.runs.length > 1 ? `${t} (×${n})` : t)).join("; ");
}

function totalsCells(t: Totals): string[] {
  return [
    `${t.passed}/${t.runs}`,
    pct(t.toolChoice),
    pct(t.argValidity),
    String(t.repairs),
    t.steps.toFixed(1),
    String(t.tokens),
    String(t.latencyP50Ms),
    usd(t.costUsd),
  ];
}

const METRICS = ["pass", "tool choice", "args valid", "repairs", "steps", "tokens", "p50 ms", "cost"];

/** One row per scenario, then the totals. */
export function scenarioTable(result: TargetResult): Table {
  return {
    head: ["scenario", ...METRICS, "failed checks"],
    rows: [
      ...result.scenarios.map((s) => [s.name, ...totalsCells(totalsOf(s.runs)), failures(s)]),
      ["TOTAL", ...totalsCells(result.totals), `pass rate ${pct(result.totals.passRate)}`],
    ],
  };
}

/** Two configurations side by side: per scenario passes, then each total metric, with what changed. */
export function compareTable(a: TargetResult, b: TargetResult): Table {
  const bByName = new Map(b.scenarios.map((s) => [s.name, s]));
  const rows = a.scenarios.map((s) => {
    const ta = totalsOf(s.runs);
    const tb = totalsOf(bByName.get(s.name)?.runs ?? []);
    const change = ta.passed === tb.passed ? "" : tb.passed > ta.passed ? "better in B" : "worse in B";
    return [s.name, `${ta.passed}/${ta.runs}`, `${tb.passed}/${tb.runs}`, change];
  });
  const ca = totalsCells(a.totals);
  const cb = totalsCells(b.totals);
  const totals = METRICS.map((m, i) => [`TOTAL ${m}`, ca[i]!, cb[i]!, ca[i] === cb[i] ? "" : "changed"]);
  return { head: ["scenario", `A: ${a.label}`, `B: ${b.label}`, "difference"], rows: [...rows, ...totals] };
}

/** A table as aligned plain text (the terminal). */
export function plainTable(t: Table): string {
  const widths = t.head.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(t.head), line(widths.map((w) => "-".repeat(w))), ...t.rows.map(line)].join("\n");
}

/** A table as GitHub Markdown. */
export function markdownTable(t: Table): string {
  const cell = (c: string) => c.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return [
    `| ${t.head.map(cell).join(" | ")} |`,
    `|${t.head.map(() => "---").join("|")}|`,
    ...t.rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

function describe(r: TargetResult): string {
  return `model ${r.model}${r.baseURL ? ` at ${r.baseURL}` : ""}${r.systemPrompt ? `, system prompt ${r.systemPrompt}` : ""}`;
}

/** The Markdown report: each configuration's table, and the comparison when there are two. */
export function markdownReport(results: readonly TargetResult[], when: Date): string {
  const parts = [`# Hermes eval, ${when.toISOString()}`, ""];
  for (const r of results) {
    parts.push(`## ${r.label}: ${describe(r)}`, "", markdownTable(scenarioTable(r)), "");
  }
  if (results.length === 2)
    parts.push("## Comparison", "", markdownTable(compareTable(results[0]!, results[1]!)), "");
  return parts.join("\n");
}

/** What the terminal shows. */
export function plainReport(results: readonly TargetResult[]): string {
  const parts: string[] = [];
  for (const r of results) parts.push(`${r.label}: ${describe(r)}`, plainTable(scenarioTable(r)), "");
  if (results.length === 2) parts.push("Comparison", plainTable(compareTable(results[0]!, results[1]!)), "");
  return parts.join("\n");
}
