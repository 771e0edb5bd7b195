import { mkdirSync } from "node:fs";
import { WebClient } from "@slack/web-api";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { planAnswer } from "../../../src/slack/answer-blocks.ts";
import { reportBlocks } from "../../../src/tools/reports/report-blocks.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../../helpers/child-process.ts";
import { launchChromium } from "../../helpers/chromium.ts";
import { quietSlackLogger } from "../../helpers/slack.ts";
import { type Harness, startHarness } from "./harness.ts";

const ARTIFACTS = "test-artifacts";

let harness: Harness;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  harness = await startHarness();
  browser = await launchChromium();
}, PROCESS_TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await harness?.stop();
});

/** playwright-core has no `expect`: wait for the DOM state (the ceiling only bounds a hang). */
const visible = (l: Locator) => l.waitFor({ state: "visible", timeout: 30_000 });

const ANSWER = [
  "## Open tickets by team",
  "",
  "Ask <@U0ADMIN> in <#C0OPS|ops> <!here>:",
  "",
  "| team | open | oldest |",
  "|---|---:|---|",
  "| network | 4 | **T-12** |",
  "| identity | 1 | T-40 |",
  "",
  "- network is *busiest*",
  "- identity is fine",
].join("\n");

describe("Slack's native blocks on the sandbox page", () => {
  it("shows a markdown answer with a table, a sortable data_table and a bar chart", async () => {
    const bot = new WebClient("xoxb-test", {
      slackApiUrl: harness.emulator.url,
      retryConfig: { retries: 0 },
      logger: quietSlackLogger(),
    });
    // The answer as Hermes plans it (one markdown block), then a report's chart and table.
    const plan = planAnswer(ANSWER);
    expect(plan.kind === "messages" && plan.messages[0]!.blocks[0]!.type).toBe("markdown");
    const answer = plan.kind === "messages" ? plan.messages[0]! : plan.summary;
    await bot.chat.postMessage({ channel: DEMO.ops, text: answer.text, blocks: answer.blocks });
    const rows = [
      { key: "open", count: 7 },
      { key: "in_progress", count: 12 },
      { key: "closed", count: 3 },
    ];
    const report = reportBlocks({ title: "Tickets by status, last 7 days", column: "status", rows });
    await bot.chat.postMessage({
      channel: DEMO.ops,
      text: "Tickets by status",
      blocks: report.blocks as never,
    });
    const trend = {
      type: "line",
      series: [
        { name: "opened", data: ["Mon", "Tue", "Wed"].map((label, i) => ({ label, value: [3, 5, 2][i] })) },
        { name: "closed", data: ["Mon", "Tue", "Wed"].map((label, i) => ({ label, value: [1, 4, 4][i] })) },
      ],
      axis_config: { categories: ["Mon", "Tue", "Wed"] },
    };
    const share = {
      type: "pie",
      segments: [
        { label: "network", value: 4 },
        { label: "identity", value: 1 },
      ],
    };
    await bot.chat.postMessage({
      channel: DEMO.ops,
      text: "Trend and share",
      blocks: [
        { type: "data_visualization", title: "Opened and closed", chart: trend },
        { type: "data_visualization", title: "Open by team", chart: share },
      ] as never,
    });

    const page: Page = await browser.newPage({
      viewport: { width: 1280, height: 1500 },
      reducedMotion: "reduce",
    });
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(`${harness.origin}/?as=U0USER1#C0OPS`);
    const main = page.getByRole("main");

    // The markdown block: heading, references as mentions (the broadcast defused), a real table, a list.
    const markdown = main.locator(".block-markdown");
    await visible(markdown.getByRole("heading", { name: "Open tickets by team" }));
    const mdTable = markdown.getByRole("table");
    await visible(mdTable);
    expect(await mdTable.getByRole("columnheader").allTextContents()).toEqual(["team", "open", "oldest"]);
    expect(await mdTable.locator("tbody tr").first().locator("td").allTextContents()).toEqual([
      "network",
      "4",
      "T-12",
    ]);
    expect(await mdTable.locator("tbody strong").textContent()).toBe("T-12");
    expect(await markdown.locator(".mention").allTextContents()).toEqual(["@zhang.wei", "#ops"]);
    expect(await markdown.textContent()).toContain("@here:");
    expect(await markdown.getByRole("listitem").count()).toBe(2);

    // The data_table: rows as sent; a click on "tickets" sorts by count (numbers), again the other way.
    const dataTable = main.getByRole("table", { name: "Tickets by status, last 7 days" });
    await visible(dataTable);
    const firstColumn = () => dataTable.locator("tbody tr th").allTextContents();
    expect(await firstColumn()).toEqual(["open", "in_progress", "closed"]);
    await dataTable.getByRole("button", { name: "tickets" }).click();
    await visible(dataTable.locator('th[aria-sort="ascending"]'));
    expect(await firstColumn()).toEqual(["closed", "open", "in_progress"]);
    await dataTable.getByRole("button", { name: /tickets/ }).click();
    await visible(dataTable.locator('th[aria-sort="descending"]'));
    expect(await firstColumn()).toEqual(["in_progress", "open", "closed"]);
    await dataTable.getByRole("button", { name: "status" }).click();
    expect(await firstColumn()).toEqual(["closed", "in_progress", "open"]);

    // The chart: an SVG bar chart with one bar per category and its title.
    const chart = main.getByRole("img", { name: "bar chart: Tickets by status, last 7 days" });
    await visible(chart);
    expect(await chart.locator("rect.chart-bar").count()).toBe(3);
    expect(await main.locator(".block-data-visualization figcaption").allTextContents()).toEqual([
      "Tickets by status, last 7 days",
      "Opened and closed",
      "Open by team",
    ]);
    // A line chart (one line per series, legend) and a pie (one slice per segment).
    const line = main.getByRole("img", { name: "line chart: Opened and closed" });
    await visible(line);
    expect(await line.locator("polyline").count()).toBe(2);
    const pieChart = main.getByRole("img", { name: "pie chart: Open by team" });
    expect(await pieChart.locator("path.chart-slice").count()).toBe(2);
    expect(await main.locator(".chart-legend").last().textContent()).toBe("networkidentity");
    expect(await main.locator(".block-unsupported").count()).toBe(0);

    await main.locator(".block-markdown").scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/native-blocks.png`, fullPage: false });
    expect(problems).toEqual([]);
    await page.close();
  });
});
