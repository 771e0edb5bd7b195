import { z } from "zod";
import { errorMessage } from "../../core/errors.ts";
import { tenantKey } from "../../core/tenant.ts";
import type { Database } from "../../store/db.ts";
import { defineTool, type ToolContext } from "../define-tool.ts";
import { failClosed } from "../fail-closed.ts";
import type { SlackPort } from "../slack-port.ts";
import { renderBarChartPng } from "./bar-chart-png.ts";
import { reportBlocks } from "./report-blocks.ts";
import { parsePeriod } from "./report-period.ts";
import { countsCsv, countsMarkdown } from "./report-table.ts";
import { countTickets, type GroupCount, REPORT_GROUPS } from "./ticket-counts.ts";

export interface TicketReportOptions {
  db: Database;
  /** The chart and table are posted into the run's thread, the CSV (and a PNG chart) uploaded there. */
  slack: Pick<SlackPort, "uploadFile" | "postMessage">;
  now?: () => Date;
}

const validZone = (tz: string | undefined) => {
  if (!tz) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/**
 * Counts tickets created in a period, grouped; returns a Markdown table, shows the counts in the run's
 * thread as Slack's native bar chart and sortable table where Slack's limits allow (a PNG chart where
 * they do not: more than 20 groups, e.g. 90 days by day) and attaches a CSV. Zero tickets: says so and
 * attaches nothing (an empty chart tells nobody anything). No channel (CLI): the table only, and it
 * says the files were not attached.
 */
export const ticketReport = ({ db, slack, now = () => new Date() }: TicketReportOptions) =>
  defineTool({
    name: "ticket_report",
    description:
      "Report how many tickets were created in a period (e.g. 24h, 7d, 30d, 90d), grouped by status, priority, assignee or day. Returns a Markdown table, shows a bar chart and a sortable table in the thread and attaches a CSV; with no tickets in the period it says so and attaches nothing.",
    level: "user",
    timeoutMs: 30_000,
    input: z.object({
      period: z
        .string()
        .trim()
        .regex(/^\d+[hdw]$/i, "use a number and h, d or w, e.g. 24h, 7d, 30d")
        .describe("how far back: 24h, 7d, 30d, 90d, 4w …"),
      group_by: z.enum(REPORT_GROUPS).describe("default status").optional(),
    }),
    examples: [{ period: "7d" }, { period: "30d", group_by: "assignee" }],
    execute: failClosed(
      "ticket database",
      async ({ period: periodText, group_by: groupBy = "status" }, ctx) => {
        const period = parsePeriod(periodText);
        const end = now();
        const since = new Date(end.getTime() - period.ms);
        const timeZone = validZone(ctx.run.timezone) ? ctx.run.timezone! : "UTC";
        const tenant = tenantKey(ctx.run.teamId);
        const rows = await countTickets({ db, tenant, since, now: end, groupBy, timeZone });
        const total = rows.reduce((n, r) => n + r.count, 0);
        const caption = `Tickets created in the last ${period.label}, by ${groupBy}${groupBy === "day" ? ` (${timeZone})` : ""}`;
        if (total === 0) {
          return `No tickets were created in the last ${period.label}, so there is nothing to count or chart; no files were attached.`;
        }
        const table = countsMarkdown({ caption, column: groupBy, rows });
        if (!ctx.run.channelId) {
          return `${table}\n\n(No Slack channel in this run, so the CSV and chart were not attached.)`;
        }
        const base = `tickets-by-${groupBy}-${period.text}`;
        try {
          const shown = await showNatively(slack, ctx, {
            title: `Tickets by ${groupBy}, last ${period.label}`,
            caption,
            column: groupBy,
            rows,
          });
          const png = shown.chart
            ? undefined
            : {
                filename: `${base}.png`,
                content: await renderBarChartPng({ title: caption, x: groupBy, y: "tickets created", rows }),
              };
          await attach(slack, ctx, {
            csv: { filename: `${base}.csv`, content: countsCsv(groupBy, rows) },
            ...(png ? { png } : {}),
            title: caption,
          });
          return `${table}\n\n${whatWasShown(shown, base)}`;
        } catch (err) {
          ctx.logger.warn({ tool: "ticket_report", err: errorMessage(err) }, "report attachment failed");
          return `${table}\n\n(Attaching the CSV and chart failed: ${errorMessage(err)})`;
        }
      },
    ),
  });

/** Where the counts went besides the returned table, in one sentence for the model to pass on. */
function whatWasShown(shown: { chart: boolean; table: boolean }, base: string): string {
  const native = [shown.chart ? "a bar chart" : "", shown.table ? "a sortable table" : ""].filter(Boolean);
  const files = shown.chart ? `${base}.csv` : `${base}.png and ${base}.csv`;
  return native.length > 0
    ? `Shown in the thread: ${native.join(" and ")}. Attached to the thread: ${files}.`
    : `Attached to the thread: ${files}.`;
}

/**
 * Posts the native chart and table into the thread. Slack refusing the blocks (a workspace without
 * them) is not a failure: the chart then goes out as a PNG, and the CSV carries the table.
 */
async function showNatively(
  slack: Pick<SlackPort, "postMessage">,
  ctx: ToolContext,
  report: { title: string; caption: string; column: string; rows: GroupCount[] },
): Promise<{ chart: boolean; table: boolean }> {
  const native = reportBlocks(report);
  if (native.blocks.length === 0) return { chart: false, table: false };
  try {
    await slack.postMessage({
      channel: ctx.run.channelId!,
      ...(ctx.run.threadTs ? { threadTs: ctx.run.threadTs } : {}),
      text: `${report.caption}: ${report.rows.map((r) => `${r.key} ${r.count}`).join(", ")}`.slice(0, 3000),
      blocks: native.blocks,
    });
    return { chart: native.chart, table: native.table };
  } catch (err) {
    ctx.logger.warn({ tool: "ticket_report", err: errorMessage(err) }, "native chart and table refused");
    return { chart: false, table: false };
  }
}

async function attach(
  slack: Pick<SlackPort, "uploadFile">,
  ctx: ToolContext,
  files: {
    csv: { filename: string; content: string };
    png?: { filename: string; content: Buffer };
    title: string;
  },
): Promise<void> {
  const where = { channel: ctx.run.channelId!, threadTs: ctx.run.threadTs };
  // One after the other: Slack rate-limits uploads per workspace, and the order reads better.
  if (files.png) await slack.uploadFile({ ...where, ...files.png, title: files.title });
  await slack.uploadFile({ ...where, ...files.csv, title: `${files.title} (CSV)` });
}
