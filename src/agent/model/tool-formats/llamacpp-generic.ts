import { callsFromJsonValue } from "./json-calls.ts";
import type { FormatMatch, ToolFormat, ToolFormatContext } from "./types.ts";
import { wholeTextObject } from "./whole-text-json.ts";

/**
 * llama.cpp's generic format, used for models whose template it does not recognise: the whole reply
 * is one JSON object (grammar-constrained when the server enforces it), either
 * `{"tool_calls": [{"name": …, "arguments": {…}, "id": …}]}`, `{"tool_call": {"name": …, "arguments":
 * {…}}}` or `{"response": "…"}` (an answer: its text is the prose). Whole text only, and every name
 * must be an offered tool: an object like this inside an explanation stays prose.
 */
export const llamaCppGenericFormat: ToolFormat = {
  id: "llamacpp_generic",
  family: 'llama.cpp generic: {"tool_calls": […]} / {"tool_call": {…}} / {"response": "…"}',
  detect: (text) => text.includes('"tool_call') || text.includes('"response"'),
  parse: parseGeneric,
};

function parseGeneric(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const whole = wholeTextObject(text);
  if (!whole) return undefined;
  const { value, complete } = whole;
  const written = value.tool_calls ?? value.tool_call;
  if (written !== undefined) {
    const calls = callsFromJsonValue(written, complete);
    if (!calls?.every((c) => ctx.isToolName(c.name))) return undefined;
    // Text written beside the calls (`"content": "…"`, as GLM-4.5 does on llama.cpp) is the prose.
    return { calls, prose: typeof value.content === "string" ? value.content.trim() : "" };
  }
  if ("response" in value) {
    const response = value.response;
    const prose = typeof response === "string" ? response : JSON.stringify(response, null, 2);
    return { calls: [], prose: (prose ?? "").trim() };
  }
  return undefined;
}
