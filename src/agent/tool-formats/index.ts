/**
 * Text tool-call formats, in the order they are tried. Formats with markers of their own come first,
 * most specific first (harmony's channels and DeepSeek's full-width tokens before the generic
 * `<tool_call>` tag; the XML bodies of Qwen3-Coder and GLM inside `<tool_call>` before its JSON body);
 * formats without a marker (bare JSON, bare pythonic lists, fenced JSON) come last and claim only a
 * whole message whose names are offered tools. See docs/model-formats.md.
 */
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
import { type Recovered, recoverWith } from "./recover.ts";
import { tgiFormat } from "./tgi.ts";
import { toolCallsTagFormat } from "./tool-calls-tag.ts";
import type { ToolFormat, ToolFormatContext } from "./types.ts";
import { xlamFormat } from "./xlam.ts";

export const TOOL_FORMATS: readonly ToolFormat[] = [
  // Special-token families: their markers cannot be prose.
  harmonyFormat, // gpt-oss: <|channel|>commentary to=functions.x … <|call|> (also tokens stripped)
  deepseekDsmlFormat, // DeepSeek V3.2: <｜DSML｜function_calls> <｜DSML｜invoke name=…>
  deepseekFormat, // DeepSeek V3 / V3.1 / R1: <｜tool▁calls▁begin｜> … <｜tool▁sep｜>
  kimiK2Format, // Kimi K2: <|tool_calls_section_begin|> functions.x:0 <|tool_call_argument_begin|>
  minimaxXmlFormat, // MiniMax M2: <minimax:tool_call><invoke name=…><parameter name=…>
  // Bodies of the generic <tool_call> tag: XML forms before the JSON one.
  qwen3CoderXmlFormat, // Qwen3-Coder / Qwen3.5: <function=x><parameter=k>v</parameter>
  glm45Format, // GLM-4.5 / 4.6 / 4.7: <tool_call>x<arg_key>k</arg_key><arg_value>v</arg_value>
  hermesJsonFormat, // Hermes 2/3, Qwen 2.5/3, Granite 3.1+: <tool_call>{json}</tool_call>
  graniteFormat, // Granite 3.0: <|tool_call|>[…]; granite-20b-fc: <function_call> {…}
  internlm2Format, // InternLM2: <|action_start|><|plugin|>{json}<|action_end|>
  toolCallsTagFormat, // Jamba / MiniMax M1: <tool_calls>[…] or one object per line</tool_calls>
  lmStudioFormat, // LM Studio: [TOOL_REQUEST]{json}[END_TOOL_REQUEST]
  mistralFormat, // Mistral: [TOOL_CALLS][…], [TOOL_CALLS]name[ARGS]{…}, [TOOL_CALLS]name{…}
  phi4MiniFormat, // Phi-4-mini, FireFunction v2: functools[…]
  gemma4Format, // Gemma 4: <|tool_call>call:name{k:<|"|>v<|"|>}<tool_call|>
  gemmaFormat, // Gemma 2/3: ```tool_code\nname(k=v)\n```
  // Pythonic lists: behind their markers (Llama 4, LFM2), or a whole message of offered tools.
  pythonicFormat, // Llama 3.2 / 4, LFM2: [name(k=v), …]
  // Bare JSON: only a whole message whose names are offered tools.
  llama3JsonFormat, // Llama 3.x: <|python_tag|>{"name":…,"parameters":…} or the bare object
  llamaCppGenericFormat, // llama.cpp generic: {"tool_calls": […]} / {"response": "…"}
  tgiFormat, // TGI (legacy grammar): {"function": {"_name": …}}
  xlamFormat, // xLAM: [{"name":…,"arguments":…}] bare or fenced
];

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
