import { formatCost, formatMs, runStatusLabel } from "../../store/run-format.ts";
import type { RunSummary } from "../../store/run-query.ts";
import { fallbackText, type SlackMessagePayload } from "../answer-blocks.ts";
import { clean } from "./audit-row-line.ts";
import { type Block, context, fitLines, linesToSections, section } from "./block-builders.ts";
import type { RunFilters } from "./parse-run-filters.ts";

const LIST_BUDGET = 9000;

/** One run as a line of mrkdwn: id, time, status, requester, channel, steps, tokens, cost, feedback, request. */
export function runListLine(r: RunSummary): string {
  const parts = [
    `\`${r.runId}\` \`${r.createdAt.toISOString().slice(0, 16).replace("T", " ")}\``,
    `*${runStatusLabel(r.status)}*`,
    r.userId ? `<@${r.userId}>` : "—",
    ...(r.channelId ? [`<#${r.channelId}>`] : []),
    `${r.steps} steps`,
    `${(r.promptTokens + r.completionTokens).toLocaleString("en-US")} tokens`,
    formatCost(r.costUsd),
    formatMs(r.wallMs),
    `👍 ${r.feedback.up} 👎 ${r.feedback.down}`,
  ];
  if (r.requestText) parts.push(clean(r.requestText, 80));
  return parts.join(" · ");
}

/** The filters as people read them. */
export function describeRunFilters(f: RunFilters, ownOnly: boolean): string {
  const parts: string[] = [];
  if (f.user) parts.push(`user <@${f.user}>`);
  else if (ownOnly) parts.push("your runs");
  if (f.status) parts.push(`status ${runStatusLabel(f.status)}`);
  if (f.since) parts.push(`since ${f.since.toISOString().slice(0, 16).replace("T", " ")} UTC`);
  return parts.length > 0 ? `Filters: ${parts.join(" · ")}` : "Filters: none (everyone's runs)";
}

/** `/hermes runs`: recent runs, newest first, one line each, with feedback counts. */
export function runListMessage(
  runs: RunSummary[],
  filters: RunFilters,
  ownOnly: boolean,
): SlackMessagePayload {
  const fitted = fitLines(runs.map(runListLine), LIST_BUDGET);
  const blocks: Block[] = [
    section(`*Recent runs* — ${runs.length === 0 ? "none" : `${runs.length}, newest first`} (times UTC)`),
    context(describeRunFilters(filters, ownOnly)),
  ];
  if (runs.length === 0) blocks.push(section("No runs match these filters."));
  else blocks.push(...linesToSections(fitted.lines).slice(0, 40));
  if (fitted.omitted > 0)
    blocks.push(context(`…${fitted.omitted} more runs: narrow with \`since:\` or \`status:\`.`));
  blocks.push(context("Details of one run: `/hermes run <id>`"));
  return { text: fallbackText(`Recent runs: ${runs.length}`), blocks };
}
