import { z } from "zod";
import type { ToolCall } from "../../tools/tool-call.ts";

/**
 * The conversation as the runtime keeps it: plain JSON-serializable data, close to the OpenAI chat
 * format so that mapping to a request is trivial and a snapshot survives `JSON.stringify`. The types
 * are read off zod schemas, so history stored outside the process is checked against the same shape
 * when it is read back.
 */

/** A call as the model wrote it (the registry, which executes it, owns the type). */
export type { ToolCall };

/** ToolCall's shape, to check stored history with (typed, so the two cannot drift apart). */
const toolCallSchema: z.ZodType<ToolCall> = z.object({
  id: z.string(),
  name: z.string(),
  arguments: z.string(),
  oversize: z.number().int().optional(),
});

export const systemMessageSchema = z.object({
  role: z.literal("system"),
  content: z.string(),
  /** A rolling summary of trimmed history: reference only, never instructions. */
  summary: z.boolean().optional(),
});

/** An image shown to the model beside a message (a file someone shared, downscaled; base64). */
export const messageImageSchema = z.object({
  name: z.string(),
  mime: z.string(),
  data: z.string(),
});

export const userMessageSchema = z.object({
  role: z.literal("user"),
  content: z.string(),
  /** Who wrote it (a Slack user id): in a shared thread, others' messages are quoted as data. */
  author: z.string().optional(),
  /**
   * Images shared with the message, for a model that takes them. Kept for the run (a continued run
   * shows them again); the thread's stored history keeps only their mention (`withoutImageData`).
   */
  images: z.array(messageImageSchema).optional(),
});

export const assistantMessageSchema = z.object({
  role: z.literal("assistant"),
  content: z.string(),
  toolCalls: z.array(toolCallSchema).optional(),
});

export const toolMessageSchema = z.object({
  role: z.literal("tool"),
  toolCallId: z.string(),
  /** Tool name, kept for tracing and for shrinking old results. */
  name: z.string(),
  content: z.string(),
  /** Reference of the full result in the ResultStore when `content` was capped. */
  resultRef: z.string().optional(),
  /** Set when the content was replaced by a short summary to save context. */
  shrunk: z.boolean().optional(),
});

export const chatMessageSchema = z.discriminatedUnion("role", [
  systemMessageSchema,
  userMessageSchema,
  assistantMessageSchema,
  toolMessageSchema,
]);

export type SystemMessage = z.infer<typeof systemMessageSchema>;
export type MessageImage = z.infer<typeof messageImageSchema>;
export type UserMessage = z.infer<typeof userMessageSchema>;
export type AssistantMessage = z.infer<typeof assistantMessageSchema>;
export type ToolMessage = z.infer<typeof toolMessageSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;

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

/**
 * History as the thread keeps it between turns: images a message carried are dropped (the message
 * still says a file was attached), so a thread's stored history does not grow by megabytes per
 * screenshot. A later turn reads the text; the image was seen in its own turn.
 */
export function withoutImageData(messages: ChatMessage[]): ChatMessage[] {
  if (!messages.some((m) => m.role === "user" && m.images)) return messages;
  return messages.map((m) => {
    if (m.role !== "user" || !m.images) return m;
    const { images: _images, ...rest } = m;
    return rest;
  });
}
