/**
 * Reasoning models write their thinking in the answer (`<think>…</think>`, DeepSeek-R1, Qwen3, QwQ,
 * GLM, MiniMax), or the server puts it in a field of its own (`reasoning_content`: vLLM, SGLang,
 * llama.cpp, DeepSeek's API; `reasoning`: Ollama, OpenRouter, LM Studio, vLLM's newer field). It is
 * kept out of the history sent back, out of Slack and out of the audit log; it goes to the trace.
 */

/** Reasoning delimiters every family shares; others are found in the text (see reasoningTags). */
const KNOWN_TAGS: readonly ReasoningTag[] = [
  { open: "<think>", close: "</think>" },
  { open: "<thinking>", close: "</thinking>" },
  { open: "<reasoning>", close: "</reasoning>" },
  { open: "[THINK]", close: "[/THINK]" }, // Magistral
];
/**
 * Any other thinking tag: `<seed:think>` (Seed-OSS), `<x:thinking>`, `<think_mode>`, and Cohere's
 * `<|START_THINKING|>…<|END_THINKING|>`. Found in the text, opening or closing half.
 */
const OTHER_TAG =
  /<\/?((?:[\w.-]{1,24}:)?[\w-]{0,24}think[\w-]{0,24})>|<\|(START|END)_(\w{0,24}THINK\w{0,24})\|>/gi;
/** Distinct extra tags taken per message. */
const MAX_OTHER_TAGS = 8;
/** Thinking-like tags looked at per message; no model writes more, and a text of them stays cheap. */
const MAX_TAGS_SCANNED = 4_096;
/** Blocks taken out of one message; past this many the rest stays (no model writes that many). */
const MAX_BLOCKS = 10_000;

interface ReasoningTag {
  open: string;
  close: string;
}

export interface SplitReasoning {
  /** The text without its reasoning blocks, trimmed. */
  text: string;
  /** The reasoning found, blocks joined by a blank line ("" when none). */
  reasoning: string;
}

/**
 * Takes reasoning blocks out of a message. A closing tag with no opening one means the template
 * opened the block in the prompt (Qwen3, DeepSeek-R1): everything before it is reasoning. An
 * opening tag that never closes (cut off) is reasoning to the end. Linear: indexOf only.
 */
export function splitReasoning(content: string): SplitReasoning {
  if (!/think[\w-]{0,24}(?:>|\]|\|>)|<\/?reasoning>/i.test(content)) return { text: content, reasoning: "" };
  const tags = reasoningTags(content);
  const opens = tags.map((t) => t.open);
  const parts: string[] = [];
  let text = content;
  const firstOpen = firstOf(text, opens, 0);
  for (const { close } of tags) {
    const at = text.indexOf(close);
    if (at >= 0 && (firstOpen.at < 0 || at < firstOpen.at)) {
      // A closing tag the answer quotes (in a blockquote or code: a tool result read back) closes
      // nothing: were it honoured, what it quotes after it would stand unquoted.
      if (quotedAt(text, at)) break;
      parts.push(text.slice(0, at));
      text = text.slice(at + close.length);
      break;
    }
  }
  let out = "";
  let at = 0;
  const nextOpen = openFinder(text, opens);
  for (let blocks = 0; blocks < MAX_BLOCKS; blocks++) {
    const open = nextOpen(at);
    if (open.at < 0) break;
    out += text.slice(at, open.at);
    const bodyStart = open.at + open.tag.length;
    const closeTag = tags.find((t) => t.open === open.tag)!.close;
    const close = text.indexOf(closeTag, bodyStart);
    if (close < 0) {
      parts.push(text.slice(bodyStart));
      at = text.length;
      break;
    }
    parts.push(text.slice(bodyStart, close));
    at = close + closeTag.length;
  }
  out += text.slice(at);
  return {
    text: out.trim(),
    reasoning: parts
      .map((p) => p.trim())
      .filter(Boolean)
      .join("\n\n"),
  };
}

/** The known tags plus the thinking tags this text writes (either half), at most MAX_OTHER_TAGS more. */
function reasoningTags(content: string): ReasoningTag[] {
  const found = new Map<string, { tag: ReasoningTag; closed: boolean; plain: boolean }>();
  for (const t of KNOWN_TAGS) found.set(t.open, { tag: t, closed: true, plain: true });
  // Each distinct written form is looked at once: a text of 100,000 `<think>` costs one scan.
  const seen = new Set<string>();
  OTHER_TAG.lastIndex = 0;
  for (
    let m = OTHER_TAG.exec(content), scanned = 0;
    m && found.size < KNOWN_TAGS.length + MAX_OTHER_TAGS && scanned < MAX_TAGS_SCANNED;
    m = OTHER_TAG.exec(content), scanned++
  ) {
    if (seen.has(m[0])) continue;
    seen.add(m[0]);
    const tag = m[1]
      ? { open: `<${m[1]}>`, close: `</${m[1]}>` }
      : { open: `<|START_${m[3]}|>`, close: `<|END_${m[3]}|>` };
    const closing = m[0].startsWith("</") || m[2]?.toUpperCase() === "END";
    // `<seed:think>`, `<|START_THINKING|>`: plainly a thinking block, even when never closed.
    const plain = /^(?:[\w.-]+:)?think(?:ing)?$/i.test(m[1] ?? "") || /^THINK(?:ING)?$/i.test(m[3] ?? "");
    const entry = found.get(tag.open) ?? { tag, closed: false, plain };
    entry.closed ||= closing;
    found.set(tag.open, entry);
  }
  // Any other name with "think" in it (`<think_mode>`, `<x:thinking_v2>`) counts once its close is written.
  return [...found.values()].filter((e) => e.closed || e.plain).map((e) => e.tag);
}

/** Whether `at` is inside a blockquote line, an unclosed code fence or an inline code span. Linear. */
function quotedAt(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf("\n", at - 1) + 1;
  const line = text.slice(lineStart, at);
  if (/^[ \t]*>(?!>>)/.test(line)) return true;
  if ((text.slice(0, at).split("```").length - 1) % 2 === 1) return true;
  return (line.replaceAll("```", "").split("`").length - 1) % 2 === 1;
}

/** The reasoning a server sent in a field of its own (`reasoning_content` or `reasoning`), if any. */
export function reasoningField(message: Record<string, unknown>): string {
  for (const key of ["reasoning_content", "reasoning", "thinking"]) {
    const v = message[key];
    if (typeof v === "string" && v.trim() !== "") return v.trim();
    // OpenRouter-style `reasoning_details: [{text}]` and objects with a `text`/`content` field.
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const t = (v as { text?: unknown; content?: unknown }).text ?? (v as { content?: unknown }).content;
      if (typeof t === "string" && t.trim() !== "") return t.trim();
    }
  }
  return "";
}

/**
 * The next opening tag at or after a position, for positions that only grow: each tag's next
 * occurrence is searched again only once passed, so a whole scan stays linear however many blocks.
 */
function openFinder(text: string, tags: readonly string[]): (from: number) => { at: number; tag: string } {
  const next = tags.map(() => -2);
  return (from) => {
    let best = { at: -1, tag: "" };
    tags.forEach((tag, k) => {
      if (next[k] !== -1 && next[k]! < from) next[k] = text.indexOf(tag, from);
      const at = next[k]!;
      if (at >= 0 && (best.at < 0 || at < best.at)) best = { at, tag };
    });
    return best;
  };
}

function firstOf(text: string, tags: string[], from: number): { at: number; tag: string } {
  let best = { at: -1, tag: "" };
  for (const tag of tags) {
    const at = text.indexOf(tag, from);
    if (at >= 0 && (best.at < 0 || at < best.at)) best = { at, tag };
  }
  return best;
}
