import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { ModelConfig } from "../../config.ts";
import { HermesError } from "../../core/errors.ts";
import type { Metrics } from "../../core/metrics.ts";
import { httpFetch } from "../../http/http-fetch.ts";
import type { ChatMessage } from "../context/messages.ts";
import type { ChatModel, ModelRequest, ModelResponse, ToolSpec } from "./chat-model.ts";
import { normalizeAssistantMessage } from "./normalize-response.ts";
import { backoffMs, retryAfterMs, sleep } from "./retry-after.ts";
import { samplingParams } from "./sampling-params.ts";
import { createReasoningLearner } from "./streaming/answer-preview.ts";
import { answerCutError } from "./streaming/stream-cap.ts";
import { type RawOutcome, StreamInterrupted, streamCompletion } from "./streaming/stream-completion.ts";
import { toolFormatContext } from "./tool-formats/context.ts";
import type { ToolFormatContext } from "./tool-formats/types.ts";
import { turnSignalFetch, withTurnSignal } from "./turn-signal-fetch.ts";

export interface OpenAIModelOptions extends ModelConfig {
  /** Longest Retry-After we wait for; a server asking for more fails the request at once. */
  maxRetryDelayMs?: number;
  /** Called for each failed attempt that will be retried (the trace records it). */
  onRetry?: (info: { attempt: number; status?: number; delayMs: number; error: string }) => void;
  /** Each answered request's latency and tokens, under the configured model's name. */
  metrics?: Metrics;
  /** What to check when the server answers 404 (default: HERMES_MODEL and OPENAI_BASE_URL). */
  notFoundHint?: string;
}

const RETRYABLE = new Set([408, 409, 429]);

/**
 * The `ChatModel` for any OpenAI-compatible server (OpenAI, Ollama, vLLM, LM Studio) on the official
 * SDK. Retries are ours, not the SDK's, so that a Retry-After is honoured but capped, every attempt is
 * traced, and the wait is cancelled when the turn's budget runs out.
 */
export function createOpenAIModel(options: OpenAIModelOptions): ChatModel {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    maxRetries: 0,
    fetch: turnSignalFetch(httpFetch()),
  });
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  const where = options.baseURL ?? "api.openai.com";

  // A server that refused a streamed request (400/422) but answers it unstreamed does not stream: it
  // is asked unstreamed from then on. A request refused both ways was bad, not the stream.
  let streamRefused = false;
  const reasoningInTemplate = createReasoningLearner(options.model);

  async function once(request: ModelRequest): Promise<ModelResponse> {
    const started = performance.now();
    const params = {
      model: options.model,
      messages: toOpenAIMessages(request.messages),
      tools: request.tools.length > 0 ? request.tools.map(toOpenAITool) : undefined,
      ...samplingParams(
        options.model,
        options.temperature,
        request.maxOutputTokens ?? options.maxOutputTokens,
      ),
    };
    let outcome: RawOutcome | { completion: unknown } | undefined;
    let refusedStream = false;
    if (options.stream && request.onText && !streamRefused) {
      try {
        outcome = await streamCompletion(client, params, {
          signal: request.signal,
          onText: request.onText,
          reasoningUntilClose: reasoningInTemplate.mayOpen,
          notACompletion: () => notACompletion(where),
          cut: (cap) => answerCutError(where, cap),
        });
      } catch (err) {
        if (!(err instanceof APIError && (err.status === 400 || err.status === 422))) throw err;
        refusedStream = true;
      }
    }
    if (!outcome) {
      outcome = { completion: await client.chat.completions.create(params, withTurnSignal(request.signal)) };
      if (refusedStream) streamRefused = true;
    }
    const elapsed = performance.now() - started;
    const latencyMs = Math.round(elapsed);
    const response =
      "completion" in outcome
        ? toResponse(fromCompletion(outcome.completion), request, latencyMs)
        : { ...toResponse(outcome, request, latencyMs), streamed: true };
    const { promptTokens, completionTokens } = response.usage;
    options.metrics?.modelCall(options.model, elapsed / 1000, promptTokens, completionTokens);
    return response;
  }

  /** A plain completion as the message to normalize (a body that is not a completion is refused). */
  function fromCompletion(completion: unknown): RawOutcome {
    // A server that is not a chat-completions endpoint (a web page, a proxy's login form) answers 200
    // with text: the SDK hands that back as a string.
    const c = completion as ChatCompletion | null;
    if (typeof c !== "object" || c === null || !Array.isArray(c.choices)) {
      throw notACompletion(where);
    }
    const choice = c.choices[0];
    if (!choice?.message) {
      throw new HermesError("model_bad_response", `The model at ${where} answered without a message.`);
    }
    return { message: choice.message, finish: choice.finish_reason, model: c.model, usage: c.usage };
  }

  /** The one way a server's message becomes a `ModelResponse`, streamed or not. */
  function toResponse(raw: RawOutcome, request: ModelRequest, latencyMs: number): ModelResponse {
    reasoningInTemplate.learn(raw.message.content);
    const normalized = normalizeAssistantMessage(raw.message, raw.finish, formatContext(request));
    const u = raw.usage;
    return {
      content: normalized.content,
      toolCalls: normalized.toolCalls,
      finishReason: normalized.finishReason,
      repairs: normalized.repairs,
      reasoning: normalized.reasoning,
      ...(normalized.textFormat
        ? { textFormat: normalized.textFormat, textCallsFrom: normalized.textCallsFrom }
        : {}),
      ...(normalized.unrecovered ? { unrecovered: normalized.unrecovered } : {}),
      latencyMs,
      model: raw.model ?? options.model,
      usage: {
        promptTokens: u?.prompt_tokens ?? 0,
        completionTokens: u?.completion_tokens ?? 0,
        totalTokens: u?.total_tokens ?? (u?.prompt_tokens ?? 0) + (u?.completion_tokens ?? 0),
        requests: 1,
      },
      ...usageDetails(u),
    };
  }

  return {
    name: options.model,
    maxOutputTokens: options.maxOutputTokens,
    async complete(request) {
      for (let attempt = 0; ; attempt++) {
        try {
          return await once(request);
        } catch (err) {
          if (request.signal?.aborted) throw err;
          // A body that is not JSON at all (cut off, empty, HTML sent as JSON) is not worth a retry.
          if (err instanceof SyntaxError) throw notACompletion(where, err);
          const status = err instanceof APIError ? err.status : undefined;
          const retryable =
            err instanceof APIConnectionError ||
            err instanceof StreamInterrupted ||
            (status !== undefined && (RETRYABLE.has(status) || status >= 500));
          const asked = err instanceof APIError ? retryAfterMs(err.headers) : undefined;
          if (
            !retryable ||
            attempt >= options.maxRetries ||
            (asked !== undefined && asked > maxRetryDelayMs)
          ) {
            throw modelError(err, {
              where,
              retries: attempt,
              asked,
              timeoutMs: options.timeoutMs,
              notFoundHint: options.notFoundHint,
            });
          }
          const delayMs = asked ?? backoffMs(attempt);
          const info = { attempt: attempt + 1, status, delayMs, error: shortError(err) };
          options.onRetry?.(info);
          request.onRetry?.(info);
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}

/** Name and schema lookups for text formats, built once per tool list (the registry caches the array). */
const contexts = new WeakMap<readonly ToolSpec[], ToolFormatContext>();
function formatContext(request: ModelRequest): ToolFormatContext {
  let ctx = contexts.get(request.tools);
  if (!ctx) {
    ctx = toolFormatContext(request.tools);
    contexts.set(request.tools, ctx);
  }
  return ctx;
}

function notACompletion(where: string, cause?: unknown): HermesError {
  return new HermesError(
    "model_bad_response",
    `The model at ${where} sent something that is not a chat completion (not JSON, or a web page). Check OPENAI_BASE_URL: it usually ends in /v1.`,
    { cause },
  );
}

function modelError(
  err: unknown,
  o: {
    where: string;
    retries: number;
    asked: number | undefined;
    timeoutMs: number;
    notFoundHint?: string | undefined;
  },
): HermesError {
  const { where, retries, asked } = o;
  const tries = retries > 0 ? ` after ${retries + 1} attempts` : "";
  if (err instanceof HermesError) return err;
  if (err instanceof APIConnectionTimeoutError) {
    return new HermesError(
      "model_unavailable",
      `The model at ${where} did not answer within ${o.timeoutMs / 1000} s${tries} (HERMES_MODEL_TIMEOUT_MS).`,
      { cause: err },
    );
  }
  if (err instanceof APIError && err.status !== undefined) {
    if (err.status === 429 && asked !== undefined) {
      return new HermesError(
        "model_unavailable",
        `The model at ${where} is rate limited for ${Math.ceil(asked / 1000)} s; try again later.`,
        { cause: err },
      );
    }
    const hint =
      err.status === 401 || err.status === 403
        ? " Check OPENAI_API_KEY."
        : err.status === 404
          ? ` ${o.notFoundHint ?? "Check HERMES_MODEL and OPENAI_BASE_URL."}`
          : "";
    return new HermesError(
      "model_unavailable",
      `The model at ${where} answered HTTP ${err.status}${tries}.${hint}`,
      {
        cause: err,
      },
    );
  }
  return new HermesError(
    "model_unavailable",
    `The model at ${where} could not be reached${tries}: ${shortError(err)}`,
    {
      cause: err,
    },
  );
}

function shortError(err: unknown): string {
  // A connection error is an APIError without a status: "HTTP ?" would only confuse.
  if (err instanceof APIError && err.status !== undefined)
    return `HTTP ${err.status} ${err.message}`.slice(0, 300);
  return (err instanceof Error ? err.message : String(err)).slice(0, 300);
}

function toOpenAITool(t: {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}): ChatCompletionTool {
  return {
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  };
}

/** Our messages → the wire format. System messages (prompt + summaries) fold into one, first. */
export function toOpenAIMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const out: ChatCompletionMessageParam[] =
    system.length > 0 ? [{ role: "system", content: system.join("\n\n") }] : [];
  for (const m of messages) {
    if (m.role === "user")
      out.push(
        m.images && m.images.length > 0
          ? {
              role: "user",
              content: [
                { type: "text", text: m.content },
                ...m.images.map((i) => ({
                  type: "image_url" as const,
                  image_url: { url: `data:${i.mime};base64,${i.data}` },
                })),
              ],
            }
          : { role: "user", content: m.content },
      );
    else if (m.role === "tool") out.push({ role: "tool", tool_call_id: m.toolCallId, content: m.content });
    else if (m.role === "assistant") {
      out.push(
        m.toolCalls && m.toolCalls.length > 0
          ? {
              role: "assistant",
              content: m.content || null,
              tool_calls: m.toolCalls.map((c) => ({
                id: c.id,
                type: "function" as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : { role: "assistant", content: m.content },
      );
    }
  }
  return out;
}

/** The cached input and reasoning tokens a server reported inside its usage, when it did. */
function usageDetails(usage: RawOutcome["usage"]): Pick<ModelResponse, "usageDetails"> {
  const u = usage as
    | {
        prompt_tokens_details?: { cached_tokens?: unknown } | null;
        completion_tokens_details?: { reasoning_tokens?: unknown } | null;
      }
    | null
    | undefined;
  const cached = u?.prompt_tokens_details?.cached_tokens;
  const reasoning = u?.completion_tokens_details?.reasoning_tokens;
  if (typeof cached !== "number" && typeof reasoning !== "number") return {};
  return {
    usageDetails: {
      ...(typeof cached === "number" ? { cachedInputTokens: cached } : {}),
      ...(typeof reasoning === "number" ? { reasoningTokens: reasoning } : {}),
    },
  };
}
