/**
 * Standard Markdown (what Slack's `markdown` block takes) as a small syntax tree, rendered as DOM
 * nodes, never as HTML. Blocks: heading, paragraph, list (nested by indent), table (with column
 * alignment), code, quote, rule. Inline: the mrkdwn view's nodes (bold, italic, strike, code, link,
 * emoji), and Slack's own references (`<@U…>`, `<#C…|name>`, `<!here>`), as Slack renders them in
 * this block too.
 */
import { parseMrkdwn, parsePlain, unescapeEntities } from "./mrkdwn.js";

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const SAFE_URL = /^(https?:|mailto:)/i;

/** Parses Markdown into block nodes. */
export function parseMarkdown(text) {
  const lines = String(text ?? "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  return blocks(lines);
}

function blocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++; // the closing fence (or the end)
      out.push({ type: "pre", text: body.join("\n") });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      out.push({ type: "heading", level: heading[1].length, children: inline(heading[2]) });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      out.push({ type: "rule" });
      i++;
      continue;
    }
    if (line.includes("|") && DELIMITER.test(lines[i + 1] ?? "") && (lines[i + 1] ?? "").includes("-")) {
      const rows = [line];
      const delimiter = lines[i + 1];
      i += 2;
      while (i < lines.length && lines[i].trim() !== "" && lines[i].includes("|")) rows.push(lines[i++]);
      out.push(table(rows, delimiter));
      continue;
    }
    if (QUOTE.test(line)) {
      const body = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(QUOTE.exec(lines[i++])[1]);
      out.push({ type: "blockquote", children: blocks(body) });
      continue;
    }
    if (ITEM.test(line)) {
      const body = [];
      const indent = ITEM.exec(line)[1].length;
      while (i < lines.length) {
        const l = lines[i];
        const item = ITEM.exec(l);
        const nested = l.trim() !== "" && l.length - l.trimStart().length > indent;
        if (!(item && item[1].length === indent) && !nested) break;
        body.push(l);
        i++;
      }
      out.push(list(body, indent));
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== "" && !startsBlock(lines, i)) para.push(lines[i++].trim());
    out.push({ type: "paragraph", children: inline(para.join("\n")) });
  }
  return out;
}

function startsBlock(lines, i) {
  const line = lines[i];
  return (
    FENCE.test(line) ||
    HEADING.test(line) ||
    RULE.test(line) ||
    QUOTE.test(line) ||
    ITEM.test(line) ||
    (line.includes("|") && DELIMITER.test(lines[i + 1] ?? "") && (lines[i + 1] ?? "").includes("-"))
  );
}

function list(lines, indent) {
  const first = ITEM.exec(lines[0]);
  const ordered = /\d/.test(first[2]);
  const items = [];
  for (const line of lines) {
    const item = ITEM.exec(line);
    if (item && item[1].length === indent) items.push({ text: item[3], nested: [] });
    else items.at(-1)?.nested.push(line.slice(Math.min(indent + 2, line.length - line.trimStart().length)));
  }
  return {
    type: "list",
    ordered,
    start: ordered ? Number.parseInt(first[2], 10) : 1,
    items: items.map((entry) => ({ children: inline(entry.text), blocks: blocks(entry.nested) })),
  };
}

function cells(row) {
  const trimmed = row
    .trim()
    .replace(/^\|/, "")
    .replace(/(?<!\\)\|$/, "");
  return trimmed.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
}

function table(rows, delimiter) {
  const align = cells(delimiter).map((d) =>
    d.startsWith(":") && d.endsWith(":")
      ? "center"
      : d.endsWith(":")
        ? "right"
        : d.startsWith(":")
          ? "left"
          : undefined,
  );
  const header = cells(rows[0]);
  const width = header.length;
  const padded = (r) => Array.from({ length: width }, (_, j) => inline(r[j] ?? ""));
  return { type: "table", align, header: padded(header), rows: rows.slice(1).map((r) => padded(cells(r))) };
}

/** Inline Markdown into the mrkdwn view's nodes. */
export function inline(text) {
  const tokens = [];
  const hold = (node) => `\u0001${tokens.push(node) - 1}\u0002`;
  const held = String(text)
    .replace(/[\u0001\u0002]/g, "\uFFFD")
    .replace(/`([^`\n]+)`/g, (_, code) => hold({ type: "code", text: code }))
    .replace(/<((?:[@#!])[^<>\n]+)>/g, (whole) =>
      hold(parseMrkdwn(whole)[0] ?? { type: "text", text: whole }),
    )
    .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (_whole, label, url) =>
      SAFE_URL.test(url) ? hold({ type: "link", url, text: label }) : label,
    )
    .replace(/<(https?:\/\/[^<>\s]+)>|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g, (_, a, b) =>
      hold({ type: "link", url: a ?? b, text: a ?? b }),
    );
  return emphasis(held, tokens);
}

const EMPHASIS = [
  [/\*\*(?=\S)([\s\S]*?\S)\*\*/, "bold"],
  [/__(?=\S)([\s\S]*?\S)__(?![\p{L}\p{N}])/u, "bold"],
  [/~~(?=\S)([\s\S]*?\S)~~/, "strike"],
  [/(?<![*\p{L}\p{N}])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?!\*)/u, "italic"],
  [/(?<![_\p{L}\p{N}])_(?=[^\s_])([^_\n]*?[^\s_])_(?![_\p{L}\p{N}])/u, "italic"],
];

function emphasis(text, tokens) {
  let best;
  for (const [re, type] of EMPHASIS) {
    const m = re.exec(text);
    if (m && (!best || m.index < best.m.index)) best = { m, type };
  }
  if (!best) return expand(text, tokens);
  const { m, type } = best;
  return [
    ...expand(text.slice(0, m.index), tokens),
    { type, children: emphasis(m[1], tokens) },
    ...emphasis(text.slice(m.index + m[0].length), tokens),
  ];
}

function expand(text, tokens) {
  if (!text) return [];
  const out = [];
  text.split(/\u0001(\d+)\u0002/).forEach((part, i) => {
    if (i % 2 === 1) out.push(tokens[Number(part)] ?? { type: "text", text: "" });
    else if (part)
      out.push(...parsePlain(unescapeEntities(part.replace(/\\([\\`*_{}[\]()#+\-.!|~>])/g, "$1"))));
  });
  return out;
}
