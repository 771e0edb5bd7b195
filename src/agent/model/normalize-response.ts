import { randomUUID } from "node:crypto";
import { argumentPreview, MAX_ARGUMENT_CHARS, MAX_JSON_DEPTH, valueTooDeep } from "../../core/json-limits.ts";
import { bareToolName, toolNameKey } from "../../tools/tool-names.ts";
import type { ToolCall } from "../context/messages.ts";
import { unwrapAnswer, withoutEmptyWrappers } from "./answer-wrappers.ts";
import type { FinishReason } from "./chat-model.ts";
import { reasoningField, splitReasoning } from "./reasoning.ts";
import { stripSpecialTokens, stripTrailingEndTokens } from "./special-tokens.ts";
import { toolFormatContext } from "./tool-formats/context.ts";
import { splitHarmony } from "./tool-formats/harmony-messages.ts";
import { recoverToolCalls } from "./tool-formats/index.ts";
import { jsonCloses } from "./tool-formats/json-calls.ts";
import type { ToolFormatContext } from "./tool-formats/types.ts";

/** The assistant message of a chat completion as servers really send it (loosely typed on purpose). */
export interface RawAssistantMessage {
  content?: unknown;
  tool_calls?: unknown;
  function_call?: unknown;
  /** Reasoning in a field of its own (vLLM, SGLang, llama.cpp, DeepSeek: `reasoning_content`; Ollama: `reasoning`). */
  reasoning_content?: unknown;
  reasoning?: unknown;
}

export interface NormalizedMessage {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  repairs: string[];
  /** The model's reasoning (think blocks, reasoning fields): for the trace only, never history or Slack. */
  reasoning: string;
  /** The text format the calls were recovered from (e.g. "hermes_json"), when they came as text. */
  textFormat?: string;
  /** Where text calls were found: the answer text, or only inside the reasoning. */
  textCallsFrom?: "content" | "reasoning";
  /**
   * The call marker (or format) of a call the model wrote but no format could read, or one cut off
   * before its end: nothing is executed and the loop asks again. Undefined otherwise.
   */
  unrecovered?: string;
}

/** Without tool specs nothing is known about names: only calls with markers of their own are recovered. */
const NO_TOOLS: ToolFormatContext = toolFormatContext([]);

const newCallId = () => `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;

/**
 * Turns whatever an OpenAI-compatible server returned into one shape: calls written as text become
 * real calls, missing or duplicate ids are generated, object arguments become strings, an empty
 * argument string becomes "{}", and `finish_reason: "stop"` with calls present means calls.
 */
export function normalizeAssistantMessage(
  raw: RawAssistantMessage,
  rawFinish: unknown,
  ctx: ToolFormatContext = NO_TOOLS,
): NormalizedMessage {
  const repairs: string[] = [];
  const written = stripTrailingEndTokens(
    typeof raw.content === "string" ? raw.content : contentParts(raw.content),
  );
  const thinking = splitReasoning(written);
  let content = thinking.text;
  let reasoning = [reasoningField(raw as Record<string, unknown>), thinking.reasoning]
    .filter(Boolean)
    .join("\n\n");
  if (thinking.reasoning) repairs.push("reasoning_removed");
  const calls: ToolCall[] = [];
  const seen = new Set<string>();

  const push = (id: unknown, name: unknown, args: unknown) => {
    if (typeof name !== "string" || name.trim() === "") {
      repairs.push("dropped_call_without_name");
      return;
    }
    let callId = typeof id === "string" && id.trim() !== "" ? id : "";
    if (!callId) repairs.push("generated_call_id");
    else if (seen.has(callId)) repairs.push("duplicate_call_id");
    if (!callId || seen.has(callId)) callId = newCallId();
    seen.add(callId);
    let argText: string;
    if (typeof args === "string") argText = args;
    else if (args === undefined || args === null) argText = "";
    else if (valueTooDeep(args)) {
      // Serializing it would overflow the stack; the registry refuses the text with a clear error.
      argText = "[".repeat(MAX_JSON_DEPTH + 1);
      repairs.push("arguments_too_deep");
    } else {
      argText = JSON.stringify(args);
      repairs.push("arguments_object");
    }
    if (argText.trim() === "") {
      argText = "{}";
      repairs.push("empty_arguments");
    }
    calls.push({ id: callId, name: name.trim(), arguments: argText });
  };

  if (Array.isArray(raw.tool_calls)) {
    for (const tc of raw.tool_calls) {
      const t = (tc ?? {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } };
      push(t.id, t.function?.name, t.function?.arguments);
    }
  } else if (raw.function_call && typeof raw.function_call === "object") {
    const fc = raw.function_call as { name?: unknown; arguments?: unknown };
    push(undefined, fc.name, fc.arguments);
    repairs.push("legacy_function_call");
  }

  let finishReason = mapFinish(rawFinish);
  let textFormat: string | undefined;
  let textCallsFrom: "content" | "reasoning" | undefined;
  let unrecovered: string | undefined;
  if (calls.length === 0) {
    let found = recoverToolCalls(content, ctx);
    textCallsFrom = "content";
    if (found.calls.length === 0 && !found.unrecovered && reasoning && content.trim() === "") {
      // A call written only inside the reasoning, with no answer beside it, is still a call (the model
      // "thought" its call out loud). Beside an answer, the reasoning may only be quoting a call (an
      // injected one it decided not to follow): then it is not one. The reasoning never becomes prose.
      const inReasoning = recoverToolCalls(reasoning, ctx);
      if (inReasoning.calls.length > 0) {
        found = { ...inReasoning, prose: content };
        textCallsFrom = "reasoning";
      }
    }
    if (found.calls.length > 0) {
      content = found.prose;
      // At the output limit only `<tool_call>` JSON whose every body closed is whole (Qwen stops
      // before its closing tag); any other family may have been cut between two calls.
      const cutOff =
        found.calls.some((c) => !c.complete) || (finishReason === "length" && found.format !== "hermes_json");
      if (cutOff) {
        // Cut off mid-call: never executed (repair would "complete" it with made-up text).
        repairs.push("cut_off_text_call");
        if (finishReason !== "length") unrecovered = found.format;
      } else {
        textFormat = found.format;
        for (const c of found.calls) push(undefined, c.name, c.arguments);
        repairs.push("text_tool_calls");
        if (finishReason === "length") repairs.push("complete_calls_at_length");
      }
    } else {
      textCallsFrom = undefined;
      unrecovered = found.unrecovered;
      // An answer some format unwrapped (llama.cpp's `{"response": "…"}`), or the text unchanged.
      if (!unrecovered) content = found.prose;
    }
  } else if (finishReason === "length" && calls.some((c) => !jsonCloses(c.arguments))) {
    // Native calls whose argument text stops mid-value: the whole step is asked again.
    calls.length = 0;
    repairs.push("cut_off_native_call");
  } else {
    // A server that parsed only the first call leaves the others as text beside it: they run too,
    // after the native ones, and a text call that repeats a native one runs once.
    const more = recoverToolCalls(content, ctx);
    if (more.calls.length > 0 && more.calls.every((c) => c.complete)) {
      const native = calls.map(callKey);
      for (const c of more.calls) {
        const key = callKey({ name: c.name, arguments: c.arguments });
        const same = native.indexOf(key);
        if (same >= 0) native[same] = "";
        else push(undefined, c.name, c.arguments);
      }
      content = more.prose;
      textFormat = more.format;
      textCallsFrom = "content";
      repairs.push("text_calls_beside_native");
    }
  }
  if (!unrecovered && mayBeHarmony(content)) {
    // gpt-oss without the server's harmony parsing: the analysis channel is reasoning, the final
    // channel (and commentary without a recipient) is the answer, whatever format the calls were in.
    const harmony = splitHarmony(content);
    if (harmony.reasoning) {
      reasoning = [reasoning, harmony.reasoning].filter(Boolean).join("\n\n");
      repairs.push("reasoning_removed");
    }
    content = harmony.final;
  }
  if (!unrecovered) content = unwrapAnswer(stripSpecialTokens(content));
  if (textFormat) content = withoutEmptyWrappers(content);
  if (calls.length > 0 && finishReason === "length") {
    // Every call closed before the output limit (a Qwen `<tool_call>` left without its closing tag):
    // the calls are whole, so they run; only a cut-off call makes the step be asked again.
    finishReason = "tool_calls";
    if (!textFormat) repairs.push("complete_calls_at_length");
  }

  if (calls.length > 0 && finishReason === "stop") {
    finishReason = "tool_calls";
    // Native calls only: an empty `tool_calls: []` beside text calls (vLLM unstreamed) is no repair.
    if (rawFinish === "stop" && !textFormat && Array.isArray(raw.tool_calls))
      repairs.push("finish_stop_with_calls");
  }
  if (calls.length === 0 && finishReason === "tool_calls") finishReason = "stop";
  return {
    content,
    toolCalls: calls.map(capOversize),
    finishReason,
    repairs,
    reasoning,
    ...(textFormat ? { textFormat, textCallsFrom } : {}),
    ...(unrecovered ? { unrecovered } : {}),
  };
}

/** A call's identity for spotting one written twice: its bare name and its arguments, keys sorted. */
function callKey(call: { name: string; arguments: unknown }): string {
  let args = call.arguments;
  if (typeof args === "string") {
    try {
      args = JSON.parse(args.trim() === "" ? "{}" : args);
    } catch {
      // Compared as written.
    }
  }
  return `${toolNameKey(bareToolName(call.name))}\u0000${stableJson(args)}`;
}

function stableJson(value: unknown, depth = 0): string {
  if (depth > 32 || value === null || typeof value !== "object") return JSON.stringify(value) ?? "";
  if (Array.isArray(value)) return `[${value.map((v) => stableJson(v, depth + 1)).join(",")}]`;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v, depth + 1)}`).join(",")}}`;
}

/**
 * A call whose argument text is longer than any call may carry keeps only a preview and its length:
 * the registry refuses it for its size, and the megabytes never reach history, checkpoints or logs.
 */
function capOversize(call: ToolCall): ToolCall {
  if (call.arguments.length <= MAX_ARGUMENT_CHARS) return call;
  return { ...call, arguments: argumentPreview(call.arguments), oversize: call.arguments.length };
}

/** Harmony's channel tokens, or what is left of them when the server strips special tokens. */
function mayBeHarmony(text: string): boolean {
  return (
    text.includes("<|channel|>") ||
    text.includes("<|message|>") ||
    text.includes("assistantfinal") ||
    text.startsWith("analysis")
  );
}

function contentParts(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((p) =>
      p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string"
        ? (p as { text: string }).text
        : "",
    )
    .join("");
}

function mapFinish(reason: unknown): FinishReason {
  switch (reason) {
    case "stop":
    case "tool_calls":
    case "length":
    case "content_filter":
      return reason;
    case "function_call":
      return "tool_calls";
    case "max_tokens":
      return "length";
    case null:
    case undefined:
      return "stop";
    default:
      return "other";
  }
}
