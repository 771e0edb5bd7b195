import { parseLenientJson } from "./lenient-json.ts";

export interface TextToolCall {
  name: string;
  arguments: string;
}

// Closed tags, or one left open at the very end (the model stopped before writing the closing tag).
const TAGGED = /<tool_call>\s*([\s\S]*?)\s*(?:<\/tool_call>|$)/g;

/**
 * Local models (Qwen, Hermes-style templates served by Ollama / vLLM without a tool parser) write
 * calls as text: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one or several. Returns the
 * calls found and the content with them removed. Text that does not parse stays in the content.
 */
export function extractTextToolCalls(content: string): { content: string; calls: TextToolCall[] } {
  if (!content.includes("<tool_call>")) return { content, calls: [] };
  const calls: TextToolCall[] = [];
  const rest = content.replace(TAGGED, (whole, body: string) => {
    const call = toCall(body);
    if (!call) return whole;
    calls.push(call);
    return "";
  });
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
  return { name: name.trim(), arguments: typeof args === "string" ? args : JSON.stringify(args) };
}
