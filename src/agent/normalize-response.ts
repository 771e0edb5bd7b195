import { randomUUID } from "node:crypto";
import type { FinishReason } from "./chat-model.ts";
import { MAX_JSON_DEPTH, valueTooDeep } from "./json-limits.ts";
import type { ToolCall } from "./messages.ts";
import { extractTextToolCalls } from "./text-tool-calls.ts";

/** The assistant message of a chat completion as servers really send it (loosely typed on purpose). */
export interface RawAssistantMessage {
  content?: unknown;
  tool_calls?: unknown;
  function_call?: unknown;
}

export interface NormalizedMessage {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  repairs: string[];
}

const newCallId = () => `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;

/**
 * Turns whatever an OpenAI-compatible server returned into one shape: calls written as text become
 * real calls, missing or duplicate ids are generated, object arguments become strings, an empty
 * argument string becomes "{}", and `finish_reason: "stop"` with calls present means calls.
 */
export function normalizeAssistantMessage(raw: RawAssistantMessage, rawFinish: unknown): NormalizedMessage {
  const repairs: string[] = [];
  let content = typeof raw.content === "string" ? raw.content : contentParts(raw.content);
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

  if (calls.length === 0 && content.includes("<tool_call>")) {
    const extracted = extractTextToolCalls(content);
    if (extracted.calls.length > 0) {
      content = extracted.content;
      for (const c of extracted.calls) push(undefined, c.name, c.arguments);
      repairs.push("text_tool_calls");
    }
  }

  let finishReason = mapFinish(rawFinish);
  if (calls.length > 0 && finishReason === "stop") {
    finishReason = "tool_calls";
    if (rawFinish === "stop" && Array.isArray(raw.tool_calls)) repairs.push("finish_stop_with_calls");
  }
  if (calls.length === 0 && finishReason === "tool_calls") finishReason = "stop";
  return { content, toolCalls: calls, finishReason, repairs };
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
