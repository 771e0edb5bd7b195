import {
  describeStep,
  formatCost,
  formatMs,
  formatTokens,
  runStatusLabel,
  timeSplit,
} from "../../store/run-format.ts";
import type { RunDetail, RunStepRecord } from "../../store/run-query.ts";
import { fallbackText, type SlackMessagePayload } from "../answer-blocks.ts";
import { clean } from "./audit-row-line.ts";
import { type Block, context, fitLines, header, linesToSections, section } from "./block-builders.ts";

/** Characters of timeline lines in one message: with the summary, well under Slack's ~13k total. */
const TIMELINE_BUDGET = 8000;
/** Longest line per step (each stored detail is cut before this). */
const LINE_MAX = 400;
const DETAIL_MAX = 160;

const KIND_ICON: Record<string, string> = {
  model: ":brain:",
  tool: ":hammer_and_wrench:",
  approval: ":raised_hand:",
  context: ":scissors:",
  note: ":memo:",
};

/** `<@U…>` for ids Slack renders as mentions; stored text otherwise escaped. */
function person(id: string | null): string {
  return id && /^[UW][A-Z0-9]+$/.test(id) ? `<@${id}>` : id ? clean(id, 40) : "—";
}

/** One timeline row as a line of mrkdwn: seq, step, kind and name, status, duration, details. */
export function stepLine(s: RunStepRecord, start: Date): string {
  const { what, status, details } = describeStep(s);
  const at = formatMs(Math.max(0, s.startedAt.getTime() - start.getTime()));
  const parts = [
    `\`${s.seq}\` +${at} ${KIND_ICON[s.kind] ?? ""} *${clean(what, 80)}*${status ? ` — ${clean(status, 30)}` : ""}`,
    ...(s.kind === "approval" ? [] : [formatMs(s.durationMs)]),
    ...details.map((d) => {
      const decided = /^decided by ([UW][A-Z0-9]+)$/.exec(d);
      return decided ? `decided by <@${decided[1]}>` : clean(d, DETAIL_MAX);
    }),
  ];
  const line = parts.join(" · ");
  return line.length > LINE_MAX ? `${line.slice(0, LINE_MAX - 1).replace(/&[a-z]*$/, "")}…` : line;
}

/**
 * `/hermes run <id>`: a header, who asked what and how it ended, the totals and where the time
 * went, then the timeline one line per step. A long run shows its first steps and "…N more steps":
 * the message stays within Slack's limits (≤ 50 blocks, sections ≤ 3000 characters).
 */
export function runTimelineMessage(run: RunDetail): SlackMessagePayload {
  const status = runStatusLabel(run.status);
  const summary = [
    `*Status:* ${status}${run.stopReason ? ` (${clean(run.stopReason, 200)})` : ""} · *requested by* ${person(run.userId)}${run.channelId ? ` in <#${run.channelId}>` : ""}`,
    `*Request:* ${run.requestText ? clean(run.requestText, 500) : "—"}`,
    `*Models:* ${run.models.length > 0 ? run.models.map((m) => `\`${clean(m, 60)}\``).join(", ") : "—"} · ${run.steps} steps · ${run.modelCalls} model calls · ${formatTokens(run.promptTokens, run.completionTokens)} · ${formatCost(run.costUsd)}`,
    `*Time:* ${formatMs(run.wallMs)} wall · ${timeSplit(run)}`,
  ];
  const lines = run.timeline.map((s) => stepLine(s, run.createdAt));
  const fitted = fitLines(lines, TIMELINE_BUDGET);
  const blocks: Block[] = [
    header(`Run ${run.runId}`),
    context(
      `Started ${run.createdAt.toISOString().slice(0, 19).replace("T", " ")} UTC${run.finishedAt ? ` · finished ${run.finishedAt.toISOString().slice(0, 19).replace("T", " ")} UTC` : ""} · 👍 ${run.feedback.up} 👎 ${run.feedback.down}`,
    ),
    section(summary.join("\n")),
  ];
  if (lines.length === 0) blocks.push(section("_No steps recorded yet._"));
  else blocks.push(...linesToSections(fitted.lines).slice(0, 40));
  if (fitted.omitted > 0)
    blocks.push(
      context(`…${fitted.omitted} more steps (\`npm run runs -- show ${run.runId}\` lists them all)`),
    );
  return { text: fallbackText(`Run ${run.runId}: ${status}, ${run.steps} steps`), blocks };
}
