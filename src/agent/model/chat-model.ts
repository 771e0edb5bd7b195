import type { ToolSpec } from "../../tools/tool-spec.ts";
import type { ChatMessage, ToolCall, Usage } from "../context/messages.ts";

/** What the model is told about one tool (the registry describes its tools so: `tools/tool-spec.ts`). */
export type { ToolSpec };

export interface ModelRequest {
  messages: ChatMessage[];
  tools: ToolSpec[];
  signal?: AbortSignal;
  /** Overrides the adapter's default max output tokens (e.g. short summaries). */
  maxOutputTokens?: number;
  /** Told about each failed attempt that will be retried (the run's trace records it). */
  onRetry?: (info: { attempt: number; status?: number; delayMs: number; error: string }) => void;
  /**
   * Told the answer text as it is written, when the adapter streams: only text that stays in the
   * final answer's start (never reasoning, tool calls or markup). A retry starts the text again.
   */
  onText?: (delta: string) => void;
}

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter" | "other";

export interface ModelResponse {
  content: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
  latencyMs: number;
  model: string;
  /** What the adapter had to fix in the raw response (for the trace). */
  repairs: string[];
  /** The model's reasoning, kept for the trace only (never history, Slack or the audit log). */
  reasoning?: string;
  /** The text format tool calls were recovered from, when the server sent them as text. */
  textFormat?: string;
  /** Where text calls were found: the answer text or only the reasoning. */
  textCallsFrom?: "content" | "reasoning";
  /** A call the model wrote that no format could read (its marker or format): asked again, never shown. */
  unrecovered?: string;
  /**
   * The answer came as a stream of chunks (SSE), so its text could be shown as it was written. Not
   * set for a plain JSON answer: command mode, a server that refused or ignored `stream`.
   */
  streamed?: boolean;
  /** Parts of `usage` the server itemised (OpenAI's `*_tokens_details`), when it did. */
  usageDetails?: { cachedInputTokens?: number; reasoningTokens?: number };
}

/** The port the loop talks to. One real implementation (OpenAI-compatible HTTP). */
export interface ChatModel {
  readonly name: string;
  readonly maxOutputTokens: number;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
