import type { types } from "@slack/bolt";
import { prefersMarkdownBlock } from "./blocks/answer-style.ts";
import { defuseBroadcasts } from "./blocks/slack-references.ts";
import { splitMarkdown } from "./blocks/split-markdown.ts";
import { markdownToMrkdwn } from "./mrkdwn.ts";
import { splitText } from "./split-text.ts";

export const SECTION_MAX = 3000;
/** Slack's limit for one `markdown` block. */
export const MARKDOWN_BLOCK_MAX = 12_000;
// Slack refuses messages whose blocks total around 13k characters (msg_blocks_too_long), well
// before 50 blocks of 3000: keep each message under this.
export const MESSAGE_TEXT_BUDGET = 11_000;
/** More messages than this and the answer goes into a file instead. */
export const MAX_ANSWER_MESSAGES = 4;
export const FALLBACK_MAX = 3000;
export const MAX_CONVERTED = 16_000;

export interface SlackMessagePayload {
  text: string;
  blocks: types.KnownBlock[];
}

export type AnswerPlan =
  | { kind: "messages"; messages: SlackMessagePayload[] }
  | { kind: "file"; summary: SlackMessagePayload; filename: string; content: string };

/**
 * A model answer (Markdown) as Slack messages within Slack's limits, a plain `text` fallback on each
 * (at most 3000 characters, so it also fits `chat.update`). An answer with tables, headings or lists
 * goes out as Slack's `markdown` block, which renders standard Markdown itself: one block of at most
 * ~11k characters per message (tables cut in two repeat their header). Other answers become mrkdwn
 * sections of at most 3000 characters, at most ~11k characters and 50 blocks per message. Either way
 * broadcasts are defused and person and channel references render as such; an answer too long for
 * a few messages becomes a Markdown file with a short lead message.
 */
export function planAnswer(markdown: string): AnswerPlan {
  // The Markdown converter costs ~12 ms per KB (more on long lines): beyond this an answer goes
  // into a file without converting all of it, so one huge answer cannot stall the process.
  if (markdown.length > MAX_CONVERTED) return asFile(markdown, markdownToMrkdwn(markdown.slice(0, 1500)));
  if (prefersMarkdownBlock(markdown)) return planMarkdownBlocks(markdown);
  const mrkdwn = markdownToMrkdwn(markdown) || "(empty answer)";
  const sections = splitText(mrkdwn, SECTION_MAX - 100);
  const messages: SlackMessagePayload[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length === 0) return;
    messages.push(toMessage(current));
    current = [];
    size = 0;
  };
  for (const s of sections) {
    if (size + s.length > MESSAGE_TEXT_BUDGET || current.length >= 49) flush();
    current.push(s);
    size += s.length;
  }
  flush();
  if (messages.length <= MAX_ANSWER_MESSAGES) return { kind: "messages", messages };
  return asFile(markdown, mrkdwn);
}

/** One `markdown` block per message; the fallback text is the piece as mrkdwn (mentions and all). */
function planMarkdownBlocks(markdown: string): AnswerPlan {
  const pieces = splitMarkdown(defuseBroadcasts(markdown).trim(), MESSAGE_TEXT_BUDGET);
  if (pieces.length > MAX_ANSWER_MESSAGES) return asFile(markdown, markdownToMrkdwn(markdown.slice(0, 1500)));
  return {
    kind: "messages",
    messages: pieces.map((text) => ({
      text: fallbackText(markdownToMrkdwn(text)),
      blocks: [{ type: "markdown", text }],
    })),
  };
}

function asFile(markdown: string, mrkdwn: string): AnswerPlan {
  const lead = `${mrkdwn.slice(0, 1500).trimEnd()}…\n\n_The full answer (${markdown.length} characters) is in the attached file._`;
  return { kind: "file", summary: toMessage([lead]), filename: "answer.md", content: markdown };
}

function toMessage(sections: string[]): SlackMessagePayload {
  return {
    text: fallbackText(sections.join("\n\n")),
    blocks: sections.map((text) => ({ type: "section", text: { type: "mrkdwn", text } })),
  };
}

/** The notification / screen-reader text of a message: short, never empty. */
export function fallbackText(text: string): string {
  const plain = text.trim() || "(no text)";
  return plain.length <= FALLBACK_MAX ? plain : `${plain.slice(0, FALLBACK_MAX - 1)}…`;
}
