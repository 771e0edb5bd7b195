import type { SpanHandle, TracingPort } from "../../core/tracing.ts";
import type { ChatMessage } from "../context/messages.ts";

/**
 * A run's OpenTelemetry GenAI spans, made from its trace events (semantic conventions for GenAI,
 * `gen_ai_latest_experimental`): `chat {model}` per model call (`model.request` → `model.response`
 * or `model.error`) and `execute_tool {name}` per call (`tool.start` → `tool.end`). They are children
 * of the active span: the worker's `invoke_agent hermes`.
 */
/** A trace event as the spans read it (`trace.ts`'s `TraceEvent`). */
interface RunEvent {
  event: string;
  runId: string;
  sessionKey: string;
  step: number;
  [key: string]: unknown;
}

export interface GenAiSpans {
  onEvent(e: RunEvent): void;
  /** The current model call's messages and answer (only when contents are opted in; redacted). */
  chatContent(input: readonly ChatMessage[], output: string): void;
}

/** The provider every model call goes to: Hermes speaks the OpenAI chat-completions API. */
const PROVIDER = "openai";

export function genAiSpans(t: TracingPort): GenAiSpans | undefined {
  if (!t.enabled) return undefined;
  let chat: { span: SpanHandle; began: number; firstChunk: boolean } | undefined;
  const tools = new Map<string, SpanHandle>();
  const endChat = (fail?: string) => {
    if (!chat) return;
    if (fail) chat.span.fail(fail, "model_error");
    chat.span.end();
    chat = undefined;
  };
  return {
    onEvent(e) {
      switch (e.event) {
        case "model.request": {
          endChat();
          // Command mode names itself after the model it hands free text to (`{model}+commands`).
          const model = String(e.model ?? "").replace(/\+commands$/, "");
          chat = {
            span: t.startSpan(`chat ${model}`, {
              kind: "client",
              attributes: {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": PROVIDER,
                "gen_ai.request.model": model,
                "gen_ai.conversation.id": e.sessionKey,
                "hermes.run.id": e.runId,
                "hermes.step": e.step,
              },
            }),
            began: performance.now(),
            firstChunk: false,
          };
          return;
        }
        case "model.text":
          if (chat && !chat.firstChunk) {
            chat.firstChunk = true;
            chat.span.setAttributes({
              "gen_ai.response.time_to_first_chunk": (performance.now() - chat.began) / 1000,
            });
          }
          return;
        case "model.response": {
          if (!chat) return;
          const usage = e.usage as { promptTokens?: number; completionTokens?: number } | undefined;
          const details = e.usageDetails as
            | { cachedInputTokens?: number; reasoningTokens?: number }
            | undefined;
          chat.span.setAttributes({
            "gen_ai.response.model": typeof e.answeredBy === "string" ? e.answeredBy : undefined,
            "gen_ai.response.finish_reasons":
              typeof e.finishReason === "string" ? [e.finishReason] : undefined,
            "gen_ai.usage.input_tokens": usage?.promptTokens,
            "gen_ai.usage.output_tokens": usage?.completionTokens,
            "gen_ai.usage.cache_read.input_tokens": details?.cachedInputTokens,
            "gen_ai.usage.reasoning.output_tokens": details?.reasoningTokens,
            "hermes.model.streamed": e.streamed === true,
            "hermes.model.tool_calls": Array.isArray(e.toolCalls) ? e.toolCalls.map(String) : undefined,
          });
          endChat();
          return;
        }
        case "model.error":
          endChat(typeof e.error === "string" ? e.error : "model error");
          return;
        case "tool.start": {
          const name = String(e.tool ?? "");
          const callId = String(e.callId ?? "");
          tools.get(callId)?.end();
          tools.set(
            callId,
            t.startSpan(`execute_tool ${name}`, {
              attributes: {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": callId,
                "gen_ai.tool.type": "function",
                "gen_ai.conversation.id": e.sessionKey,
                "hermes.run.id": e.runId,
              },
            }),
          );
          return;
        }
        case "tool.end": {
          const callId = String(e.callId ?? "");
          const span = tools.get(callId);
          if (!span) return;
          tools.delete(callId);
          span.setAttributes({
            "hermes.tool.outcome": e.ok === true ? "ok" : "error",
            "hermes.tool.attempts": typeof e.attempts === "number" ? e.attempts : undefined,
          });
          if (e.ok !== true) span.fail(typeof e.error === "string" ? e.error : "tool failed", "tool_error");
          span.end();
          return;
        }
        case "run.end":
          endChat();
          for (const span of tools.values()) span.end();
          tools.clear();
          return;
        default:
          return;
      }
    },
    chatContent(input, output) {
      const redact = t.content;
      if (!chat || !redact) return;
      chat.span.setAttributes({
        "gen_ai.input.messages": redact(JSON.stringify(input.map(asPart))),
        "gen_ai.output.messages": redact(
          JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: output }] }]),
        ),
      });
    },
  };
}

/** A message in the conventions' shape: a role and its text parts (images are named, not sent). */
function asPart(m: ChatMessage): { role: string; parts: Array<Record<string, unknown>> } {
  const content = (m as { content?: unknown }).content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((p) =>
              typeof p === "object" && p && "text" in p ? String((p as { text: unknown }).text) : "[image]",
            )
            .join("\n")
        : "";
  return { role: m.role, parts: [{ type: "text", content: text }] };
}
