import { dataVisualizationBlock } from "./chart-block.ts";
import { dataTableBlock } from "./table-block.ts";
import type { GroupCount } from "./ticket-counts.ts";

export interface ReportBlocks {
  /** What the message shows: a native chart and/or a sortable table (empty when neither fits). */
  blocks: unknown[];
  /** The chart is a native one (no PNG needed). */
  chart: boolean;
  /** The counts are a sortable table in the message. */
  table: boolean;
}

/**
 * A report's counts as Slack draws them natively: a bar chart (`data_visualization`) when Slack's
 * limits allow it (at most 20 groups, short labels) and a sortable table (`data_table`, at most 100
 * rows, numbers sorted as numbers). What does not fit is left out here, and the caller falls back to a PNG
 * chart or the CSV alone.
 */
export function reportBlocks(options: { title: string; column: string; rows: GroupCount[] }): ReportBlocks {
  const { title, column, rows } = options;
  const chart = dataVisualizationBlock({
    type: "bar",
    title,
    categories: rows.map((r) => r.key),
    series: [{ name: "tickets", values: rows.map((r) => r.count) }],
    xLabel: column,
    yLabel: "tickets created",
  });
  const table = dataTableBlock({
    caption: title,
    columns: [column, "tickets"],
    rows: rows.map((r) => [r.key, r.count]),
  });
  return {
    blocks: [...(chart ? [chart] : []), ...(table ? [table] : [])],
    chart: Boolean(chart),
    table: Boolean(table),
  };
}
