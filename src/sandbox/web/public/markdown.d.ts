/** Types for markdown.js, so the TypeScript tests can import the page's Markdown parser. */
import type { MrkdwnNode } from "./mrkdwn.js";

export type MarkdownNode =
  | { type: "heading"; level: number; children: MrkdwnNode[] }
  | { type: "paragraph"; children: MrkdwnNode[] }
  | { type: "pre"; text: string }
  | { type: "rule" }
  | { type: "blockquote"; children: MarkdownNode[] }
  | {
      type: "list";
      ordered: boolean;
      start: number;
      items: Array<{ children: MrkdwnNode[]; blocks: MarkdownNode[] }>;
    }
  | {
      type: "table";
      align: Array<"left" | "right" | "center" | undefined>;
      header: MrkdwnNode[][];
      rows: MrkdwnNode[][][];
    };

export function parseMarkdown(text: string): MarkdownNode[];
export function inline(text: string): MrkdwnNode[];
