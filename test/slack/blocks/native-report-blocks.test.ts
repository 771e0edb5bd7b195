import { describe, expect, it } from "vitest";
import { dataVisualizationBlock } from "../../../src/tools/reports/chart-block.ts";
import { dataTableBlock, tableChars } from "../../../src/tools/reports/table-block.ts";

const chart = (categories: string[], more: Partial<Parameters<typeof dataVisualizationBlock>[0]> = {}) =>
  dataVisualizationBlock({
    type: "bar",
    title: "Tickets",
    categories,
    series: [{ name: "tickets", values: categories.map((_, i) => i) }],
    ...more,
  });

describe("native charts only where Slack's limits allow them", () => {
  it("bar, line and area charts: up to 20 categories and 6 series, labels ≤ 20, title ≤ 50", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => `day ${i}`);
    expect(chart(twenty)?.chart).toMatchObject({ type: "bar", axis_config: { categories: twenty } });
    expect(chart([...twenty, "one more"])).toBeUndefined();
    expect(chart(["a"], { title: "t".repeat(50) })).toBeDefined();
    expect(chart(["a"], { title: "t".repeat(51) })).toBeUndefined();
    expect(chart(["c".repeat(21)])).toBeUndefined();
    expect(chart(["a", "a"])).toBeUndefined();
    const series = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `s${i}`, values: [1] }));
    expect(chart(["a"], { type: "line", series: series(6) })?.chart.type).toBe("line");
    expect(chart(["a"], { type: "area", series: series(7) })).toBeUndefined();
    expect(chart(["a"], { series: [{ name: "s", values: [Number.NaN] }] })).toBeUndefined();
    // An axis label over 50 characters is left out rather than refusing the chart.
    expect(chart(["a"], { xLabel: "x".repeat(51), yLabel: "tickets" })?.chart).toMatchObject({
      axis_config: { categories: ["a"], y_label: "tickets" },
    });
  });

  it("pie: up to 6 positive segments", () => {
    const pie = (values: number[]) =>
      dataVisualizationBlock({
        type: "pie",
        title: "Share",
        categories: values.map((_, i) => `s${i}`),
        series: [{ name: "share", values }],
      });
    expect(pie([1, 2, 3])).toEqual({
      type: "data_visualization",
      title: "Share",
      chart: {
        type: "pie",
        segments: [
          { label: "s0", value: 1 },
          { label: "s1", value: 2 },
          { label: "s2", value: 3 },
        ],
      },
    });
    expect(pie([1, 1, 1, 1, 1, 1, 1])).toBeUndefined();
    expect(pie([1, 0])).toBeUndefined();
  });
});

describe("sortable tables only where Slack's limits allow them", () => {
  it("numbers are raw_number cells (sorted as numbers), text raw_text, empty text a dash", () => {
    const block = dataTableBlock({
      caption: "Counts",
      columns: ["who", "n"],
      rows: [
        ["ana", 1200],
        ["", 3],
      ],
    });
    expect(block).toEqual({
      type: "data_table",
      caption: "Counts",
      page_size: 10,
      rows: [
        [
          { type: "raw_text", text: "who" },
          { type: "raw_text", text: "n" },
        ],
        [
          { type: "raw_text", text: "ana" },
          { type: "raw_number", value: 1200, text: "1,200" },
        ],
        [
          { type: "raw_text", text: "–" },
          { type: "raw_number", value: 3, text: "3" },
        ],
      ],
    });
  });

  it("at most 100 rows, 20 columns and 10,000 characters; no ragged rows", () => {
    const rows = (n: number) => Array.from({ length: n }, (_, i) => [`r${i}`]);
    expect(dataTableBlock({ caption: "c", columns: ["a"], rows: rows(100) })).toBeDefined();
    expect(dataTableBlock({ caption: "c", columns: ["a"], rows: rows(101) })).toBeUndefined();
    expect(dataTableBlock({ caption: "c", columns: ["a"], rows: [] })).toBeUndefined();
    const wide = Array.from({ length: 21 }, (_, i) => `c${i}`);
    expect(dataTableBlock({ caption: "c", columns: wide, rows: [wide] })).toBeUndefined();
    expect(dataTableBlock({ caption: "c", columns: ["a", "b"], rows: [["1"]] })).toBeUndefined();
    // 1 (header) + 10 × 999 = 9991 characters; 9 more fit, 10 do not.
    const big = Array.from({ length: 10 }, () => ["x".repeat(999)]);
    expect(dataTableBlock({ caption: "c", columns: ["a"], rows: big })).toBeDefined();
    expect(
      dataTableBlock({ caption: "c", columns: ["a"], rows: [...big, ["x".repeat(10)]] }),
    ).toBeUndefined();
    expect(dataTableBlock({ caption: "c", columns: ["a"], rows: [...big, ["x".repeat(9)]] })).toBeDefined();
    expect(tableChars(dataTableBlock({ caption: "c", columns: ["ab"], rows: [["cde"]] })!)).toBe(5);
  });
});
