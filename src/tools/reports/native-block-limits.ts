/**
 * Slack's limits for the `data_table` and `data_visualization` blocks (docs.slack.dev Block Kit
 * reference: data-table-block, data-visualization-block; @slack/types 3.2 for the table's JSON).
 */
export const DATA_TABLE = {
  /** Body rows (the header row comes on top: 101 rows in all). */
  maxRows: 100,
  maxColumns: 20,
  /** Characters across all cells of one table, and of all tables of one message. */
  maxChars: 10_000,
  maxPageSize: 100,
} as const;

export const DATA_VISUALIZATION = {
  maxTitle: 50,
  maxAxisLabel: 50,
  /** Series of a line, bar or area chart; segments of a pie. */
  maxSeries: 6,
  maxSegments: 6,
  /** Categories (x-axis labels) of a line, bar or area chart: data points per series. */
  maxCategories: 20,
  /** A category, series name or segment label. */
  maxLabel: 20,
  perMessage: 2,
} as const;

export const CHART_TYPES = ["line", "bar", "area", "pie"] as const;
export type ChartType = (typeof CHART_TYPES)[number];
