import { postAsUser } from "../../../src/sandbox/post-as-user.ts";
import { renderBarChartPng } from "../../../src/tools/reports/bar-chart-png.ts";
import { sandboxWebClient } from "../../helpers/slack.ts";
import type { Harness } from "./harness.ts";

/** Untrusted text the bot might echo: it must show as text, never become markup. */
export const HOSTILE_TEXT = `<img src=x onerror="window.__pwned=1">`;

/**
 * #general with what Hermes posts: a report with header, fields, context with a date, divider, a
 * code block and a quote, an echoed hostile string, a PNG chart and a CSV file.
 */
export async function seedRichMessages({ emulator, workspace }: Pick<Harness, "emulator" | "workspace">) {
  const client = sandboxWebClient(emulator);
  const question = postAsUser(workspace, {
    user: "U0ADMIN",
    channel: "C0GENERAL",
    text: "<@U0HERMES> weekly ticket report please",
  });
  const week = Math.floor(Date.parse("2026-01-05T09:00:00Z") / 1000);
  await client.chat.postMessage({
    channel: "C0GENERAL",
    text: "Weekly ticket report",
    blocks: [
      { type: "header", text: { type: "plain_text", text: "Weekly ticket report" } },
      {
        type: "section",
        fields: [
          { type: "mrkdwn", text: "*Opened*\n12" },
          { type: "mrkdwn", text: "*Closed*\n9" },
          { type: "mrkdwn", text: "*Urgent*\n~2~ 1" },
          { type: "mrkdwn", text: "*Owner*\n<@U0USER1>" },
        ],
      },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `:bar_chart: Since <!date^${week}^{date_short} {time}|2026-01-05 09:00 UTC> · <#C0OPS> · Tom &amp; Jerry &lt;ops&gt;`,
          },
        ],
      },
      { type: "divider" },
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: '&gt; VPN down on 3F\n```\nrun create_ticket title="VPN down" priority=high\n```\nSee <https://example.com/runbook|the runbook>.',
        },
      },
      { type: "section", text: { type: "plain_text", text: `Echoed title: ${HOSTILE_TEXT}` } },
    ],
  });
  const png = await renderBarChartPng({
    title: "Tickets opened per day",
    x: "Day",
    y: "Tickets",
    rows: ["Mon", "Tue", "Wed", "Thu", "Fri"].map((key, i) => ({ key, count: [3, 5, 2, 1, 4][i] ?? 0 })),
    width: 480,
    height: 260,
  });
  await client.filesUploadV2({
    channel_id: "C0GENERAL",
    file_uploads: [
      { file: png, filename: "tickets.png", title: "Tickets opened per day" },
      { file: Buffer.from("day,count\nMon,3\nTue,5\n"), filename: "tickets.csv", title: "tickets.csv" },
    ],
    initial_comment: "Here is the chart and the data.",
  });
  return { question };
}
