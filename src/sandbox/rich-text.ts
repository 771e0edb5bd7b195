import { randomBytes } from "node:crypto";

type RichTextElement =
  | { type: "text"; text: string }
  | { type: "user"; user_id: string }
  | { type: "channel"; channel_id: string };

/**
 * The `rich_text` block Slack's clients attach to what a person types: mentions (`<@U…>`) and channel
 * links (`<#C…>` / `<#C…|name>`) become their own elements, the rest is text.
 */
export function richTextBlocks(text: string): unknown[] {
  const elements: RichTextElement[] = [];
  const pattern = /<@([UW][A-Z0-9]+)(?:\|[^>]*)?>|<#([CGD][A-Z0-9]+)(?:\|[^>]*)?>/g;
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) elements.push({ type: "text", text: text.slice(last, index) });
    if (match[1]) elements.push({ type: "user", user_id: match[1] });
    else if (match[2]) elements.push({ type: "channel", channel_id: match[2] });
    last = index + match[0].length;
  }
  if (last < text.length) elements.push({ type: "text", text: text.slice(last) });
  return [
    {
      type: "rich_text",
      block_id: randomBytes(3).toString("base64url").slice(0, 5),
      elements: [{ type: "rich_text_section", elements }],
    },
  ];
}
