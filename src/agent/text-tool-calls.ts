import { parseLenientJson } from "./lenient-json.ts";

export interface TextToolCall {
  name: string;
  arguments: string;
}

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
/** Tagged sections examined per message; past this many, the rest stays text (no model writes more). */
const MAX_TAGGED = 64;

/**
 * Local models (Qwen, Hermes-style templates served by Ollama / vLLM without a tool parser) write
 * calls as text: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one or several, the last one
 * possibly left open (the model stopped before the closing tag). Returns the calls found and the
 * content with them removed. Text that does not parse stays in the content. Scans with indexOf only,
 * so its cost is linear in the content whatever the model wrote.
 */
export function extractTextToolCalls(content: string): { content: string; calls: TextToolCall[] } {
  if (!content.includes(OPEN)) return { content, calls: [] };
  const calls: TextToolCall[] = [];
  let rest = "";
  let at = 0;
  // The next closing tag at or after the current position; searched again only once passed, so the
  // whole scan stays linear even with thousands of tags and no closing one.
  let close = -2;
  for (let examined = 0; examined < MAX_TAGGED; examined++) {
    const open = content.indexOf(OPEN, at);
    if (open < 0) break;
    const bodyStart = open + OPEN.length;
    if (close !== -1 && close < bodyStart) close = content.indexOf(CLOSE, bodyStart);
    // An open tag runs to the next open tag or the end when it was never closed.
    const nextOpen = content.indexOf(OPEN, bodyStart);
    const closed = close >= 0 && (nextOpen < 0 || close < nextOpen);
    const bodyEnd = closed ? close : nextOpen >= 0 ? nextOpen : content.length;
    const end = closed ? close + CLOSE.length : bodyEnd;
    const call = toCall(content.slice(bodyStart, bodyEnd).trim());
    rest += content.slice(at, open);
    if (!call) rest += content.slice(open, end);
    else calls.push(call);
    at = end;
  }
  rest += content.slice(at);
  return { content: rest.trim(), calls };
}

function toCall(body: string): TextToolCall | undefined {
  const parsed = parseLenientJson(body);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null) return undefined;
  const obj = parsed.value as Record<string, unknown>;
  const fn =
    typeof obj.function === "object" && obj.function !== null
      ? (obj.function as Record<string, unknown>)
      : obj;
  const name = fn.name;
  if (typeof name !== "string" || name.trim() === "") return undefined;
  const args = fn.arguments ?? fn.parameters ?? {};
  if (typeof args === "string") return { name: name.trim(), arguments: args };
  return { name: name.trim(), arguments: JSON.stringify(args) };
}
