import type { WebAPIPlatformError, WebClient } from "@slack/web-api";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import type { SlackApiEmulator } from "../../../src/sandbox/slack-api-server.ts";
import { validateBlocks } from "../../../src/sandbox/validate-blocks.ts";
import { reportBlocks } from "../../../src/tools/reports/report-blocks.ts";
import { sandboxWebClient, startSlackEmulator } from "../../helpers/slack.ts";

let emulator: SlackApiEmulator;
let client: WebClient;

beforeEach(async () => {
  emulator = await startSlackEmulator();
  client = sandboxWebClient(emulator);
});
afterEach(() => emulator.stop());

const raw = (text: string) => ({ type: "raw_text", text });
const num = (value: number) => ({ type: "raw_number", value, text: String(value) });
const table = (rows: unknown[][], more: Record<string, unknown> = {}) => ({
  type: "data_table",
  caption: "Tickets",
  rows,
  ...more,
});
const bar = (categories: string[], series: Array<{ name: string; values: number[] }>, title = "Tickets") => ({
  type: "data_visualization",
  title,
  chart: {
    type: "bar",
    series: series.map((s) => ({
      name: s.name,
      data: categories.map((label, i) => ({ label, value: s.values[i] })),
    })),
    axis_config: { categories, x_label: "status", y_label: "tickets" },
  },
});
const pie = (segments: Array<[string, number]>) => ({
  type: "data_visualization",
  title: "Share",
  chart: { type: "pie", segments: segments.map(([label, value]) => ({ label, value })) },
});

async function refusal(blocks: unknown[]): Promise<string[]> {
  const err = (await client.chat
    .postMessage({ channel: DEMO.ops, text: "fallback", blocks: blocks as never })
    .then(
      () => undefined,
      (e: unknown) => e,
    )) as WebAPIPlatformError | undefined;
  const data = err?.data as unknown as { error?: string; errors?: string[] } | undefined;
  expect(data?.error).toBe("invalid_blocks");
  return data?.errors ?? [];
}

describe("the emulator takes markdown, data_table and data_visualization blocks as Slack does", () => {
  it("posts valid ones and keeps them on the message", async () => {
    const blocks = [
      { type: "markdown", text: "| a | b |\n|---|---|\n| 1 | 2 |" },
      table(
        [
          [raw("status"), raw("tickets")],
          [raw("open"), num(2)],
          [raw("closed"), num(1)],
        ],
        { page_size: 5 },
      ),
      bar(["open", "closed"], [{ name: "tickets", values: [2, 1] }]),
      pie([
        ["open", 2],
        ["closed", 1],
      ]),
    ];
    const posted = await client.chat.postMessage({
      channel: DEMO.ops,
      text: "Tickets",
      blocks: blocks as never,
    });
    expect(posted.ok).toBe(true);
    expect(posted.message?.blocks?.map((b) => b.type)).toEqual([
      "markdown",
      "data_table",
      "data_visualization",
      "data_visualization",
    ]);
  });

  it("a report's own blocks pass", () => {
    const rows = ["open", "in_progress", "closed"].map((key, i) => ({ key, count: i + 1 }));
    const native = reportBlocks({ title: "Tickets by status, last 7 days", column: "status", rows });
    expect(native).toMatchObject({ chart: true, table: true });
    expect(validateBlocks(native.blocks, { maxBlocks: 50 })).toEqual([]);
  });

  it.each([
    [
      "a markdown block over 12,000 characters",
      [{ type: "markdown", text: "x".repeat(12_001) }],
      "must be less than 12001 characters [json-pointer:/blocks/0/text]",
    ],
    [
      "a table without caption",
      [{ type: "data_table", rows: [[raw("a")], [raw("b")]] }],
      "missing required field: caption [json-pointer:/blocks/0/caption]",
    ],
    [
      "a table with only its header",
      [table([[raw("a")]])],
      "must provide at least 2 rows (a header and one row) [json-pointer:/blocks/0/rows]",
    ],
    [
      "a table of 102 rows",
      [table(Array.from({ length: 102 }, () => [raw("a")]))],
      "no more than 101 items allowed [json-pointer:/blocks/0/rows]",
    ],
    [
      "a table of 21 columns",
      [table([Array.from({ length: 21 }, () => raw("h")), Array.from({ length: 21 }, () => raw("v"))])],
      "no more than 20 columns allowed [json-pointer:/blocks/0/rows/0]",
    ],
    [
      "ragged rows",
      [table([[raw("a"), raw("b")], [raw("1")]])],
      "every row must have 2 cells [json-pointer:/blocks/0/rows/1]",
    ],
    [
      "an empty cell",
      [table([[raw("a")], [raw("")]])],
      "must be more than 0 characters [json-pointer:/blocks/0/rows/1/0/text]",
    ],
    [
      "rich_text in the header",
      [table([[{ type: "rich_text", elements: [] }], [raw("b")]])],
      "must be one of: raw_text, raw_number (got rich_text) [json-pointer:/blocks/0/rows/0/0/type]",
    ],
    [
      "a number cell without a number",
      [table([[raw("a")], [{ type: "raw_number", value: "2", text: "2" }]])],
      "must be a number [json-pointer:/blocks/0/rows/1/0/value]",
    ],
    [
      "page_size 0",
      [table([[raw("a")], [raw("b")]], { page_size: 0 })],
      "must be an integer from 1 to 100 [json-pointer:/blocks/0/page_size]",
    ],
    [
      "cells over 10,000 characters",
      [table([[raw("a")], ...Array.from({ length: 11 }, () => [raw("x".repeat(1000))])])],
      "the cells hold 11001 characters; no more than 10000 allowed [json-pointer:/blocks/0/rows]",
    ],
    [
      "a chart title of 51 characters",
      [bar(["a"], [{ name: "s", values: [1] }], "t".repeat(51))],
      "must be less than 51 characters [json-pointer:/blocks/0/title]",
    ],
    [
      "a chart of 21 categories",
      [
        bar(
          Array.from({ length: 21 }, (_, i) => `c${i}`),
          [{ name: "s", values: Array(21).fill(1) }],
        ),
      ],
      "no more than 20 items allowed [json-pointer:/blocks/0/chart/axis_config/categories]",
    ],
    [
      "a chart of 7 series",
      [
        bar(
          ["a"],
          Array.from({ length: 7 }, (_, i) => ({ name: `s${i}`, values: [1] })),
        ),
      ],
      "no more than 6 items allowed [json-pointer:/blocks/0/chart/series]",
    ],
    [
      "a category over 20 characters",
      [bar(["c".repeat(21)], [{ name: "s", values: [1] }])],
      "must be less than 21 characters [json-pointer:/blocks/0/chart/axis_config/categories/0]",
    ],
    [
      "two series of one name",
      [
        bar(
          ["a"],
          [
            { name: "s", values: [1] },
            { name: "s", values: [2] },
          ],
        ),
      ],
      "duplicate series name: s [json-pointer:/blocks/0/chart/series/1/name]",
    ],
    [
      "a data point off the axis",
      [
        {
          ...bar(["a"], [{ name: "s", values: [1] }]),
          chart: {
            type: "line",
            series: [{ name: "s", data: [{ label: "b", value: 1 }] }],
            axis_config: { categories: ["a"] },
          },
        },
      ],
      "label must be one of the axis_config categories [json-pointer:/blocks/0/chart/series/0/data/0/label]",
    ],
    [
      "a pie slice of 0",
      [pie([["a", 0]])],
      "must be a number greater than 0 [json-pointer:/blocks/0/chart/segments/0/value]",
    ],
    [
      "an unknown chart type",
      [{ type: "data_visualization", title: "t", chart: { type: "scatter" } }],
      "must be one of: pie, bar, area, line (got scatter) [json-pointer:/blocks/0/chart/type]",
    ],
    [
      "three charts in one message",
      [pie([["a", 1]]), pie([["a", 1]]), pie([["a", 1]])],
      "no more than 2 data_visualization blocks allowed [json-pointer:/blocks]",
    ],
    [
      "two tables over 10,000 characters together",
      [table([[raw("a")], [raw("x".repeat(6000))]]), table([[raw("a")], [raw("x".repeat(6000))]])],
      "the tables hold 12002 characters; no more than 10000 allowed per message [json-pointer:/blocks]",
    ],
  ])("refuses %s with invalid_blocks and the reason", async (_name, blocks, reason) => {
    expect(await refusal(blocks)).toContain(reason);
  });
});
