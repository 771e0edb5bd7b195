import { markedCallsFormat, readJsonCalls } from "./marked-calls.ts";
import { skipSpaces } from "./scan-text.ts";

/**
 * Hermes 2 Pro / Hermes 3, Qwen 2.5 / Qwen 3, Xiaomi MiMo and Granite 3.1+: `<tool_call>{"name": …,
 * "arguments": {…}}</tool_call>`, one or several, the last possibly left open (the model stopped
 * before the closing tag: complete when its JSON closes). A body may hold a list of calls (Granite
 * writes `<tool_call>[{…}, {…}]`), several objects in a row, or a fenced object. A body in XML —
 * Qwen3-Coder's `<function=…>` or GLM's `name<arg_key>…` — belongs to another format, so the whole
 * text is left to it.
 */
export const hermesJsonFormat = markedCallsFormat({
  id: "hermes_json",
  family: "Hermes 2 Pro / 3, Qwen 2.5 / 3, Granite 3.1+, MiMo: <tool_call>{json}</tool_call>",
  markers: { open: ["<tool_call>"], close: ["</tool_call>"] },
  read: (text, pos, at) =>
    isXmlBody(text, skipSpaces(text, pos), at.limit) ? "foreign" : readJsonCalls(text, pos, at),
});

/** Qwen3-Coder (`<function=name>`) and GLM-4.5 (`name<arg_key>…`) write XML inside the same tag. */
function isXmlBody(text: string, start: number, limit: number): boolean {
  if (text.startsWith("<function", start)) return true;
  const first = text[start];
  return first !== "{" && first !== "[" && first !== "`" && text.slice(start, limit).includes("<arg_key>");
}
