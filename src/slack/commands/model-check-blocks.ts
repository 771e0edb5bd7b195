import { modelCheckFindings } from "../../agent/model/model-check/findings.ts";
import type { ModelCheckResult, VerdictStatus } from "../../agent/model/model-check/types.ts";
import { verdictLine } from "../../agent/model/model-check/verdict.ts";
import type { SlackMessagePayload } from "../answer-blocks.ts";
import { escapeMrkdwn } from "../mrkdwn.ts";
import { type Block, context, header, oneLine, section } from "./block-builders.ts";

/** A finding's text in a section: long server error texts are cut, far below Slack's 3000. */
const FINDING_MAX = 700;

const ICON: Record<VerdictStatus, string> = {
  ready: ":large_green_circle:",
  works: ":large_yellow_circle:",
  not_usable: ":red_circle:",
};

/**
 * `/hermes model`: a section per finding, then the verdict and its hint, within Slack's limits
 * (under twenty blocks, each far below 3000 characters). Everything the server said is escaped and
 * passed through `redact` (the configured key never shows, even if a server echoes it); the model's
 * own words (`raw` findings) go in a code block, so markup shows as written and formats nothing.
 */
export function modelCheckMessage(
  result: ModelCheckResult,
  redact: (text: string) => string,
): SlackMessagePayload {
  const safe = (text: string, max = FINDING_MAX) => escapeMrkdwn(oneLine(redact(text), max));
  const verdict = verdictLine(result.verdict);
  const blocks: Block[] = [
    header(`Model check: ${oneLine(redact(result.model), 120)}`),
    ...modelCheckFindings(result).map((f) =>
      section(`*${f.label}*\n${f.raw ? codeBlock(safe(f.text)) : safe(f.text)}`),
    ),
    section(`${ICON[result.verdict.status]} *${safe(verdict)}*`),
    ...(result.verdict.hint ? [section(`*What to change:* ${safe(result.verdict.hint)}`)] : []),
    context(
      `Checked in ${(result.durationMs / 1000).toFixed(1)} s with the bot's ${result.toolCount} tool specs. \`npm run model:check\` runs the same check from a terminal.`,
    ),
  ];
  return { text: redact(verdict).slice(0, 3000), blocks };
}

/** Escaped text as a code block: a fence inside it would end the block early, so it is broken up. */
function codeBlock(escaped: string): string {
  return `\`\`\`${escaped.replace(/`{3,}/g, (m) => m.split("").join("\u200b"))}\`\`\``;
}
