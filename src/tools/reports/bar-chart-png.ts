import type { TopLevelSpec } from "vega-lite";

export interface BarChartOptions {
  title: string;
  /** Category axis title. */
  x: string;
  /** Value axis title. */
  y: string;
  rows: Array<{ key: string; count: number }>;
  width?: number;
  height?: number;
}

/**
 * A bar chart as PNG: vega-lite → vega → SVG (headless, no canvas) → PNG with resvg on white.
 * The whole image is `width`×`height` (padding and axes fit inside). Bars keep the rows' order.
 */
export async function renderBarChartPng(options: BarChartOptions): Promise<Buffer> {
  const { title, x, y, rows, width = 640, height = 360 } = options;
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: title, fontSize: 15 },
    width,
    height,
    autosize: { type: "fit", contains: "padding" },
    padding: 12,
    background: "white",
    config: { font: "DejaVu Sans, Arial, sans-serif", view: { stroke: null } },
    data: { values: rows },
    mark: { type: "bar", color: "#4a7bd0", tooltip: false },
    encoding: {
      x: {
        field: "key",
        type: "ordinal",
        sort: null,
        title: x,
        // Many bars (90 days): slant the labels and drop the ones that would overlap.
        axis: { labelAngle: rows.length > 8 ? -45 : 0, labelOverlap: "greedy", labelLimit: 120 },
      },
      y: { field: "count", type: "quantitative", title: y, axis: { tickMinStep: 1, format: "d" } },
    },
  };
  // Loaded on the first chart, not at start: vega, vega-lite and resvg hold ~35 MB.
  const [vega, { compile }, { Resvg }] = await Promise.all([
    import("vega"),
    import("vega-lite"),
    import("@resvg/resvg-js"),
  ]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  try {
    const svg = await view.toSVG();
    return new Resvg(svg, { font: { loadSystemFonts: true }, background: "white" }).render().asPng();
  } finally {
    view.finalize();
  }
}
