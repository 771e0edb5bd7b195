import { type ChartType, DATA_VISUALIZATION } from "./native-block-limits.ts";

export interface ChartSeries {
  name: string;
  values: number[];
}

export interface ChartData {
  type: ChartType;
  title: string;
  /** The x-axis categories (pie: the segment labels). */
  categories: string[];
  /** One series per line, bar group or area; a pie takes the first series' values. */
  series: ChartSeries[];
  xLabel?: string;
  yLabel?: string;
}

/** The `data_visualization` block, as Slack's Block Kit reference gives it (not in @slack/types). */
export interface DataVisualizationBlock {
  type: "data_visualization";
  title: string;
  chart:
    | { type: "pie"; segments: Array<{ label: string; value: number }> }
    | {
        type: "line" | "bar" | "area";
        series: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
        axis_config: { categories: string[]; x_label?: string; y_label?: string };
      };
  block_id?: string;
}

/**
 * A native chart, or undefined when Slack's limits do not allow one and the caller shows a picture
 * instead: a title over 50 characters, more than 20 categories or 6 series (6 segments for a pie), a
 * category or series name over 20 characters, two categories alike, a value that is not a finite
 * number (a pie: not positive). Nothing is cut to fit: a chart that leaves data out would mislead.
 */
export function dataVisualizationBlock(data: ChartData): DataVisualizationBlock | undefined {
  const L = DATA_VISUALIZATION;
  const title = data.title.trim();
  if (!title || title.length > L.maxTitle) return undefined;
  const { categories, series } = data;
  if (categories.length === 0 || new Set(categories).size !== categories.length) return undefined;
  if (categories.some((c) => c.trim() === "" || c.length > L.maxLabel)) return undefined;
  if (series.length === 0 || series.some((s) => s.values.length !== categories.length)) return undefined;
  if (series.some((s) => s.values.some((v) => !Number.isFinite(v)))) return undefined;
  if (data.type === "pie") {
    const values = series[0]!.values;
    if (categories.length > L.maxSegments || values.some((v) => v <= 0)) return undefined;
    return {
      type: "data_visualization",
      title,
      chart: { type: "pie", segments: categories.map((label, i) => ({ label, value: values[i]! })) },
    };
  }
  if (categories.length > L.maxCategories || series.length > L.maxSeries) return undefined;
  const names = series.map((s) => s.name.trim());
  if (names.some((n) => !n || n.length > L.maxLabel) || new Set(names).size !== names.length)
    return undefined;
  const axisLabel = (label: string | undefined) =>
    label?.trim() && label.length <= L.maxAxisLabel ? label.trim() : undefined;
  const x = axisLabel(data.xLabel);
  const y = axisLabel(data.yLabel);
  return {
    type: "data_visualization",
    title,
    chart: {
      type: data.type,
      series: series.map((s, j) => ({
        name: names[j]!,
        data: categories.map((label, i) => ({ label, value: s.values[i]! })),
      })),
      axis_config: { categories, ...(x ? { x_label: x } : {}), ...(y ? { y_label: y } : {}) },
    },
  };
}
