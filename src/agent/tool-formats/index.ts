/**
 * Text tool-call formats, in the order they are tried. Formats with markers of their own come first,
 * most specific first (harmony's channels and DeepSeek's full-width tokens before the generic
 * `<tool_call>` tag; the XML bodies of Qwen3-Coder and GLM inside `<tool_call>` before its JSON body);
 * formats without a marker (bare JSON, bare pythonic lists, fenced JSON) come last and claim only a
 * whole message whose names are offered tools. See docs/model-formats.md.
 */
import { hermesJsonFormat } from "./hermes-json.ts";
import { type Recovered, recoverWith } from "./recover.ts";
import type { ToolFormat, ToolFormatContext } from "./types.ts";

export const TOOL_FORMATS: readonly ToolFormat[] = [hermesJsonFormat];

/**
 * Markers that show the model tried to write a call. When one is present and no format read a call,
 * the reply is "unrecovered": asked again, never shown to the user as an answer.
 */
export const CALL_MARKERS: readonly string[] = [
  "<tool_call>",
  "<|tool_call|>",
  "<|tool_call>",
  "<function=",
  "<arg_key>",
  "<minimax:tool_call>",
  "<tool_calls>",
  "[TOOL_CALLS]",
  "[TOOL_REQUEST]",
  "<|python_tag|>",
  "<|python_start|>",
  "<|tool_call_start|>",
  "<|tool_calls_section_begin|>",
  "<|tool_call_begin|>",
  "tool▁call",
  "｜DSML｜",
  "<|action_start|>",
  "functools[",
  "```tool_code",
  "to=functions.",
  "<function_call>",
];

/** The calls written as text in `text`, in whichever known family's syntax, and the prose around them. */
export function recoverToolCalls(text: string, ctx: ToolFormatContext): Recovered {
  return recoverWith(TOOL_FORMATS, CALL_MARKERS, text, ctx);
}

export type { Recovered } from "./recover.ts";
