/**
 * Reasoning models write their thinking in the answer (`<think>…</think>`, DeepSeek-R1, Qwen3, QwQ,
 * GLM, MiniMax), or the server puts it in a field of its own (`reasoning_content`: vLLM, SGLang,
 * llama.cpp, DeepSeek's API; `reasoning`: Ollama, OpenRouter, LM Studio, vLLM's newer field). It is
 * kept out of the history sent back, out of Slack and out of the audit log; it goes to the trace.
 */

const OPEN_TAGS = ["<think>", "<thinking>", "<reasoning>", "[THINK]"];
const CLOSE_OF: Record<string, string> = {
  "<think>": "</think>",
  "<thinking>": "</thinking>",
  "<reasoning>": "</reasoning>",
  "[THINK]": "[/THINK]", // Magistral
};
/** Blocks taken out of one message; past this many the rest stays (no model writes that many). */
const MAX_BLOCKS = 10_000;

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
  if (!/<\/?(think|thinking|reasoning)>|\[\/?THINK\]/.test(content)) {
    return { text: content, reasoning: "" };
  }
  const parts: string[] = [];
  let text = content;
  const firstOpen = firstOf(text, OPEN_TAGS, 0);
  for (const close of ["</think>", "</thinking>", "</reasoning>", "[/THINK]"]) {
    const at = text.indexOf(close);
    if (at >= 0 && (firstOpen.at < 0 || at < firstOpen.at)) {
      parts.push(text.slice(0, at));
      text = text.slice(at + close.length);
      break;
    }
  }
  let out = "";
  let at = 0;
  const nextOpen = openFinder(text);
  for (let blocks = 0; blocks < MAX_BLOCKS; blocks++) {
    const open = nextOpen(at);
    if (open.at < 0) break;
    out += text.slice(at, open.at);
    const bodyStart = open.at + open.tag.length;
    const closeTag = CLOSE_OF[open.tag]!;
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
function openFinder(text: string): (from: number) => { at: number; tag: string } {
  const next = OPEN_TAGS.map(() => -2);
  return (from) => {
    let best = { at: -1, tag: "" };
    OPEN_TAGS.forEach((tag, k) => {
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
