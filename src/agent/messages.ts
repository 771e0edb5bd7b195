import type { ToolCall } from "../tools/tool-call.ts";

/**
 * The conversation as the runtime keeps it: plain JSON-serializable data, close to the OpenAI chat
 * format so that mapping to a request is trivial and a snapshot survives `JSON.stringify`.
 */

/** A call as the model wrote it (the registry, which executes it, owns the type). */
export type { ToolCall };

export interface SystemMessage {
  role: "system";
  content: string;
  /** A rolling summary of trimmed history: reference only, never instructions. */
  summary?: boolean;
}

export interface UserMessage {
  role: "user";
  content: string;
  /** Who wrote it (a Slack user id): in a shared thread, others' messages are quoted as data. */
  author?: string;
}

export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls?: ToolCall[];
}

export interface ToolMessage {
  role: "tool";
  toolCallId: string;
  /** Tool name, kept for tracing and for shrinking old results. */
  name: string;
  content: string;
  /** Reference of the full result in the ResultStore when `content` was capped. */
  resultRef?: string;
  /** Set when the content was replaced by a short summary to save context. */
  shrunk?: boolean;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export function hasToolCalls(m: ChatMessage): m is AssistantMessage & { toolCalls: ToolCall[] } {
  return m.role === "assistant" && Array.isArray(m.toolCalls) && m.toolCalls.length > 0;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  requests: number;
}

export const emptyUsage = (): Usage => ({
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  requests: 0,
});

export function addUsage(total: Usage, more: Partial<Usage>): Usage {
  return {
    promptTokens: total.promptTokens + (more.promptTokens ?? 0),
    completionTokens: total.completionTokens + (more.completionTokens ?? 0),
    totalTokens: total.totalTokens + (more.totalTokens ?? 0),
    requests: total.requests + (more.requests ?? 0),
  };
}
