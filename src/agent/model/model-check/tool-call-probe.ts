import type { ChatMessage, ToolCall } from "../../context/messages.ts";
import { DEFAULT_SYSTEM_PROMPT } from "../../context/system-prompt.ts";
import type { ToolSpec } from "../chat-model.ts";
import { normalizeAssistantMessage, type RawAssistantMessage } from "../normalize-response.ts";
import { toOpenAIMessages } from "../openai-model.ts";
import { splitReasoning } from "../reasoning.ts";
import { samplingParams } from "../sampling-params.ts";
import type { ToolFormatContext } from "../tool-formats/types.ts";
import { errorText, type HttpAnswer, httpProbe, oneLine } from "./http-probe.ts";
import type { ToolProbeOutcome, ToolProbeTry } from "./types.ts";
import { callLikeMarker, rawSample } from "./unknown-markup.ts";

/** The tool every probe asks for: read-only, no arguments needed, and one every model understands. */
export const PROBE_TOOL_NAME = "get_current_time";

export const PROBE_QUESTION = `What time is it? Use the ${PROBE_TOOL_NAME} tool.`;

/** Offered only when the registry has no `get_current_time` of its own (a custom tool set). */
const PROBE_TOOL: ToolSpec = {
  name: PROBE_TOOL_NAME,
  description: "The current date and time.",
  parameters: {
    type: "object",
    properties: { timezone: { type: "string", description: "IANA time zone, e.g. Europe/Berlin" } },
    additionalProperties: false,
  },
};

/** The registry's specs, plus the probe's tool when the registry lacks it. */
export function probeSpecs(specs: readonly ToolSpec[]): ToolSpec[] {
  return specs.some((s) => s.name === PROBE_TOOL_NAME) ? [...specs] : [...specs, PROBE_TOOL];
}

/** The first turn of the probe: the bot's own system prompt and a question that needs the tool. */
export function probeMessages(): ChatMessage[] {
  return [
    { role: "system", content: DEFAULT_SYSTEM_PROMPT },
    { role: "user", content: PROBE_QUESTION },
  ];
}

export interface ChatSettings {
  url: string;
  model: string;
  apiKey: string;
  temperature: number;
  maxTokens: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A chat completion request exactly as the bot sends it (same messages mapping, tools, no tool_choice). */
export function postChat(
  s: ChatSettings,
  messages: ChatMessage[],
  specs: readonly ToolSpec[],
  extra: Record<string, unknown> = {},
) {
  return httpProbe({
    url: s.url,
    method: "POST",
    apiKey: s.apiKey,
    timeoutMs: s.timeoutMs,
    signal: s.signal,
    body: {
      model: s.model,
      messages: toOpenAIMessages(messages),
      tools: specs.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description, parameters: t.parameters },
      })),
      ...samplingParams(s.model, s.temperature, s.maxTokens),
      ...extra,
    },
  });
}

/** One probe's outcome and the calls it returned (normalized, with ids), to send results back for. */
export interface ProbeAnswer {
  attempt: ToolProbeTry;
  calls: ToolCall[];
}

/** Asks the model the probe question once, with the tools, and says what came back. */
export async function probeToolCall(
  s: ChatSettings,
  specs: readonly ToolSpec[],
  ctx: ToolFormatContext,
): Promise<ProbeAnswer> {
  const answer = await postChat(s, probeMessages(), specs);
  return classifyToolAnswer(
    answer,
    ctx,
    specs.map((t) => t.name),
  );
}

/**
 * Reads a chat completion the way the bot does (`normalizeAssistantMessage` with the tools' format
 * context): `message.tool_calls` present is native; calls recovered from the text carry the format
 * they were written in; a call marker nobody could read is unrecovered; markup that looks like a call
 * in a syntax no reader knows (`callLikeMarker`) is unknown markup, with the reply's start as the
 * sample; an HTTP error that names the tools (a parser or template switched off) is a refusal of
 * tools rather than a plain error.
 */
export function classifyToolAnswer(
  answer: HttpAnswer,
  ctx: ToolFormatContext,
  toolNames: readonly string[] = [],
): ProbeAnswer {
  const done = (outcome: ToolProbeOutcome, reasoning = false, calls: ToolCall[] = []): ProbeAnswer => ({
    attempt: { outcome, ms: answer.ms, reasoning },
    calls,
  });
  if (!answer.ok) return done({ kind: "unreachable", error: answer.error, timedOut: answer.timedOut });
  if (answer.status >= 400) {
    const message = errorText(answer);
    return done({
      kind: refusesTools(message) ? "tools_refused" : "http_error",
      status: answer.status,
      message,
    });
  }
  const choice = (answer.json as { choices?: unknown } | undefined)?.choices;
  const first = Array.isArray(choice)
    ? (choice[0] as { message?: unknown; finish_reason?: unknown })
    : undefined;
  if (!first || typeof first.message !== "object" || first.message === null) {
    const type = answer.headers["content-type"] ?? "no content type";
    const start = oneLine(answer.text, 60);
    return done({ kind: "not_completion", detail: start ? `${type}: ${start}` : `${type}, empty body` });
  }
  const raw = first.message as RawAssistantMessage;
  const normalized = normalizeAssistantMessage(raw, first.finish_reason, ctx);
  const reasoning = normalized.reasoning.trim() !== "";
  const names = normalized.toolCalls.map((c) => c.name);
  if (Array.isArray(raw.tool_calls) && raw.tool_calls.length > 0 && names.length > 0) {
    return done({ kind: "native", calls: names }, reasoning, normalized.toolCalls);
  }
  if (names.length > 0) {
    const format = normalized.textFormat ?? (raw.function_call ? "legacy function_call" : "text");
    return done({ kind: "text", format, calls: names }, reasoning, normalized.toolCalls);
  }
  // The reply as written (special tokens and all), without its reasoning: what the sample shows.
  const written = splitReasoning(contentText(raw.content)).text;
  if (normalized.unrecovered) {
    return done(
      { kind: "unrecovered", marker: normalized.unrecovered, sample: rawSample(written) },
      reasoning,
    );
  }
  const marker = callLikeMarker(written, toolNames);
  if (marker) return done({ kind: "unknown_markup", marker, sample: rawSample(written) }, reasoning);
  return done({ kind: "no_call", content: oneLine(normalized.content, 120) }, reasoning);
}

/** Message content as servers send it: a string, or parts whose texts join. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) =>
      typeof (p as { text?: unknown } | null)?.text === "string" ? (p as { text: string }).text : "",
    )
    .join("");
}

/** Server words for "not with tools": vLLM without a parser, llama.cpp without --jinja, Ollama, gateways. */
export function refusesTools(message: string): boolean {
  return (
    /tool/i.test(message) && /support|require|jinja|parser|enable|not allowed|unsupported/i.test(message)
  );
}
