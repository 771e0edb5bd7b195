/**
 * Text tool-call formats. The one whose marker comes first in the text is tried first; on a tie (the
 * same marker, e.g. `<tool_call>`), the order below decides (the JSON body of `<tool_call>` before the XML
 * bodies of Qwen3-Coder and GLM: the JSON reader declines XML bodies). Formats without a marker of their
 * own (bare JSON, bare pythonic lists, fenced JSON) claim only a whole message whose names are
 * offered tools. When none reads a call, the schema-guided reader is tried last: call-like markup naming
 * an offered tool with arguments that fit its schema. See docs/model-formats.md.
 */
import { callSiteFinder } from "./call-sites.ts";
import { deepseekFormat } from "./deepseek.ts";
import { deepseekDsmlFormat } from "./deepseek-dsml.ts";
import { gemmaFormat } from "./gemma.ts";
import { gemma4Format } from "./gemma4.ts";
import { glm45Format } from "./glm45.ts";
import { graniteFormat } from "./granite.ts";
import { harmonyFormat } from "./harmony.ts";
import { hermesJsonFormat } from "./hermes-json.ts";
import { internlm2Format } from "./internlm2.ts";
import { kimiK2Format } from "./kimi-k2.ts";
import { llama3JsonFormat } from "./llama3-json.ts";
import { llamaCppGenericFormat } from "./llamacpp-generic.ts";
import { lmStudioFormat } from "./lmstudio.ts";
import { minimaxXmlFormat } from "./minimax-xml.ts";
import { mistralFormat } from "./mistral.ts";
import { phi4MiniFormat } from "./phi4-mini.ts";
import { pythonicFormat } from "./pythonic.ts";
import { qwen3CoderXmlFormat } from "./qwen3-coder-xml.ts";
import { type OrderedFormat, type Recovered, recoverWith } from "./recover.ts";
import { schemaGuidedFormat } from "./schema-guided.ts";
import { tgiFormat } from "./tgi.ts";
import { toolCallsTagFormat } from "./tool-calls-tag.ts";
import type { ToolFormat, ToolFormatContext } from "./types.ts";
import { xlamFormat } from "./xlam.ts";

const marked = (format: ToolFormat, ...markers: string[]): OrderedFormat => ({ format, markers });

/** The formats in the order they are tried on a tie (see recover.ts: the first marker in the text goes first). */
export const ORDERED_FORMATS: readonly OrderedFormat[] = [
  // Special-token families: their markers cannot be prose.
  // gpt-oss: <|channel|>commentary to=functions.x … <|call|> (also with its tokens stripped)
  marked(harmonyFormat, "<|start|>", "<|channel|>", "to=functions.", "commentary to=", "analysis"),
  // DeepSeek V3.2: <｜DSML｜function_calls> <｜DSML｜invoke name=…>
  marked(deepseekDsmlFormat, "<｜DSML｜", "<|DSML|"),
  // DeepSeek V3 / V3.1 / R1: <｜tool▁calls▁begin｜> … <｜tool▁sep｜>
  marked(deepseekFormat, "tool▁call", "tool▁sep", "tool_calls_begin", "tool_call_begin｜"),
  // Kimi K2: <|tool_calls_section_begin|> functions.x:0 <|tool_call_argument_begin|>
  marked(kimiK2Format, "<|tool_calls_section_begin|>", "<|tool_call_section_begin|>", "<|tool_call_begin|>"),
  // MiniMax M2: <minimax:tool_call><invoke name=…><parameter name=…>
  marked(minimaxXmlFormat, "<minimax:tool_call>", "<invoke name="),
  // Bodies of the generic <tool_call> tag: the JSON one first (it declines XML bodies), so XML
  // quoted inside a JSON call's arguments is never read as the call.
  // Hermes 2/3, Qwen 2.5/3, Granite 3.1+: <tool_call>{json}</tool_call>
  marked(hermesJsonFormat, "<tool_call>"),
  // Qwen3-Coder / Qwen3.5: <function=x><parameter=k>v</parameter>
  // Seed-OSS: the same inside <seed:tool_call>
  marked(qwen3CoderXmlFormat, "<tool_call>", "<function=", "<seed:tool_call>"),
  // GLM-4.5 / 4.6 / 4.7: <tool_call>x<arg_key>k</arg_key><arg_value>v</arg_value>
  marked(glm45Format, "<tool_call>"),
  // Granite 3.0: <|tool_call|>[…]; granite-20b-fc: <function_call> {…}
  marked(graniteFormat, "<|tool_call|>", "<function_call>"),
  // InternLM2: <|action_start|><|plugin|>{json}<|action_end|>
  marked(internlm2Format, "<|action_start|>"),
  // Jamba / MiniMax M1: <tool_calls>[…] or one object per line</tool_calls>
  marked(toolCallsTagFormat, "<tool_calls>"),
  // LM Studio: [TOOL_REQUEST]{json}[END_TOOL_REQUEST]
  marked(lmStudioFormat, "[TOOL_REQUEST]"),
  // Mistral: [TOOL_CALLS][…], [TOOL_CALLS]name[ARGS]{…}, [TOOL_CALLS]name{…}
  marked(mistralFormat, "[TOOL_CALLS]"),
  // Phi-4-mini, FireFunction v2: functools[…]
  marked(phi4MiniFormat, "functools["),
  // Gemma 4: <|tool_call>call:name{k:<|"|>v<|"|>}<tool_call|>
  // FunctionGemma: <start_function_call>call:name{k:<escape>v<escape>}<end_function_call>
  marked(gemma4Format, "<|tool_call>", "call:", "<start_function_call>"),
  // Gemma 2/3: ```tool_code\nname(k=v)\n```
  marked(gemmaFormat, "```tool_code"),
  // Llama 3.2 / 4, LFM2: [name(k=v), …] (bare: a whole message of offered tools)
  marked(pythonicFormat, "<|python_start|>", "<|tool_call_start|>"),
  // Llama 3.x: <|python_tag|>{"name":…,"parameters":…} or the bare object
  marked(llama3JsonFormat, "<|python_tag|>"),
  // Bare JSON, only a whole message whose names are offered tools:
  marked(llamaCppGenericFormat), // llama.cpp generic: {"tool_calls": […]} / {"response": "…"}
  marked(tgiFormat), // TGI (legacy grammar): {"function": {"_name": …}}
  marked(xlamFormat), // xLAM: [{"name":…,"arguments":…}] bare or fenced
];

/** Tried only when no format above reads a call (and on the text they leave over). */
export const FALLBACK_FORMAT = {
  format: schemaGuidedFormat,
  markers: [],
  firstAt: (text: string) => callSiteFinder(text)(0)?.start ?? text.length,
};

/**
 * Markers that show the model tried to write a call. When one is present and no format read a call,
 * the reply is "unrecovered": asked again, never shown to the user as an answer.
 */
export const CALL_MARKERS: readonly string[] = [
  "<tool_call>",
  "<|tool_call|>",
  "<|tool_call>",
  "<start_function_call>",
  "<function=",
  "<seed:tool_call>",
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
  "✿FUNCTION✿",
];

/** The calls written as text in `text`, in whichever known family's syntax, and the prose around them. */
export function recoverToolCalls(text: string, ctx: ToolFormatContext): Recovered {
  return recoverWith(ORDERED_FORMATS, CALL_MARKERS, text, ctx, FALLBACK_FORMAT);
}

export type { Recovered } from "./recover.ts";
