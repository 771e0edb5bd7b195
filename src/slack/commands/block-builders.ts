import type { types } from "@slack/bolt";
import {
  fallbackText,
  MESSAGE_TEXT_BUDGET,
  SECTION_MAX,
  type SlackMessagePayload,
} from "../answer-blocks.ts";
import { splitText } from "../split-text.ts";

/** A Block Kit block as Slack's own types define it (`@slack/bolt` re-exports `@slack/types`). */
export type Block = types.KnownBlock;

const HEADER_MAX = 150;
const CONTEXT_MAX = 3000;
const SECTION_ROOM = SECTION_MAX - 100;

export function section(text: string, blockId?: string): types.SectionBlock {
  return {
    type: "section",
    ...(blockId ? { block_id: blockId } : {}),
    text: { type: "mrkdwn", text: text.slice(0, SECTION_MAX) },
  };
}

export function header(text: string): types.HeaderBlock {
  const plain = text.length > HEADER_MAX ? `${text.slice(0, HEADER_MAX - 1)}…` : text;
  return { type: "header", text: { type: "plain_text", text: plain, emoji: true } };
}

export function context(text: string): types.ContextBlock {
  return { type: "context", elements: [{ type: "mrkdwn", text: text.slice(0, CONTEXT_MAX) }] };
}

export function divider(): types.DividerBlock {
  return { type: "divider" };
}

/**
 * Lines of mrkdwn packed into as few sections as fit (each ≤ 3000 characters); a line never spans
 * two sections unless it alone is too long.
 */
export function linesToSections(lines: readonly string[]): Block[] {
  const out: Block[] = [];
  let current = "";
  for (const line of lines.flatMap((l) => (l.length > SECTION_ROOM ? splitText(l, SECTION_ROOM) : [l]))) {
    if (current && current.length + 1 + line.length > SECTION_ROOM) {
      out.push(section(current));
      current = "";
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) out.push(section(current));
  return out;
}

/** A plain mrkdwn answer as one message: sections within Slack's limits and a `text` fallback. */
export function textMessage(mrkdwn: string): SlackMessagePayload {
  const budget =
    mrkdwn.length > MESSAGE_TEXT_BUDGET ? `${mrkdwn.slice(0, MESSAGE_TEXT_BUDGET - 1)}…` : mrkdwn;
  return { text: fallbackText(mrkdwn), blocks: splitText(budget, SECTION_ROOM).map((t) => section(t)) };
}

/** Characters of text in blocks (roughly what Slack's `msg_blocks_too_long` counts). */
export function blocksTextLength(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + blocksTextLength(v), 0);
  if (typeof value !== "object" || value === null) return 0;
  let n = 0;
  for (const [key, v] of Object.entries(value))
    n += key === "text" && typeof v === "string" ? v.length : blocksTextLength(v);
  return n;
}

/** One line of untrusted text: whitespace collapsed, cut with "…" at `max`. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** As many leading lines as fit in `maxChars` (newlines counted), and how many were left out. */
export function fitLines(lines: readonly string[], maxChars: number): { lines: string[]; omitted: number } {
  let used = 0;
  let n = 0;
  for (const line of lines) {
    if (used + line.length + 1 > maxChars) break;
    used += line.length + 1;
    n++;
  }
  return { lines: lines.slice(0, n), omitted: lines.length - n };
}
