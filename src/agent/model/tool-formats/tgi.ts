import { isRecord } from "./json-calls.ts";
import type { FormatMatch, ToolFormat, ToolFormatContext } from "./types.ts";
import { wholeTextObject } from "./whole-text-json.ts";

/** TGI's pseudo-tools for "no tool fits": the answer is in one of their fields, not a call. */
const ANSWER_TOOLS = new Map([
  ["no_tool", "content"],
  ["notify_error", "error"],
]);

/**
 * Hugging Face TGI's legacy tool grammar, seen as content when a client or proxy does not unwrap it:
 * the whole reply is `{"function": {"_name": "get_weather", "location": "…"}}` — the name under
 * `_name`, the arguments flattened beside it (router/src/infer/tool_grammar.rs, chat.rs). TGI's own
 * `no_tool` (field `content`) and older `notify_error` (field `error`) carry an answer, which becomes
 * the prose unless a real tool has that name. Whole text only; names must be offered tools.
 */
export const tgiFormat: ToolFormat = {
  id: "tgi",
  family: 'Hugging Face TGI tool grammar: {"function": {"_name": …, …arguments}}',
  detect: (text) => text.includes('"_name"'),
  parse: parseTgi,
};

function parseTgi(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const whole = wholeTextObject(text);
  if (!whole || !isRecord(whole.value.function)) return undefined;
  const { _name: name, ...args } = whole.value.function;
  if (typeof name !== "string" || name.trim() === "") return undefined;
  const answerField = ANSWER_TOOLS.get(name);
  if (answerField !== undefined && !ctx.isToolName(name)) {
    const answer = args[answerField];
    return { calls: [], prose: typeof answer === "string" ? answer.trim() : "" };
  }
  if (!ctx.isToolName(name)) return undefined;
  return { calls: [{ name: name.trim(), arguments: args, complete: whole.complete }], prose: "" };
}
