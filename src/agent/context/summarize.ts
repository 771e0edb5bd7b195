import type { ChatModel } from "../model/chat-model.ts";
import type { ChatMessage, Usage } from "./messages.ts";
import { SUMMARY_SYSTEM_PROMPT } from "./system-prompt.ts";

/** Renders trimmed units as plain text and asks the model for a rolling summary. */
export async function summarizeWithModel(
  model: ChatModel,
  input: { previous: string | undefined; dropped: ChatMessage[] },
  signal: AbortSignal,
  onUsage: (u: Usage) => void,
): Promise<string> {
  const lines = input.dropped.map((m) => {
    if (m.role === "assistant" && m.toolCalls?.length) {
      const calls = m.toolCalls.map((c) => `${c.name}(${c.arguments})`).join(", ");
      return `assistant: ${m.content ? `${m.content} ` : ""}[called ${calls}]`;
    }
    if (m.role === "tool") return `result of ${m.name}: ${m.content.slice(0, 600)}`;
    return `${m.role}: ${m.content.slice(0, 2000)}`;
  });
  const previous = input.previous ? `Summary so far:\n${input.previous}\n\n` : "";
  const response = await model.complete({
    messages: [
      { role: "system", content: SUMMARY_SYSTEM_PROMPT },
      {
        role: "user",
        content: `${previous}Conversation to add:\n<untrusted>\n${lines.join("\n")}\n</untrusted>`,
      },
    ],
    tools: [],
    signal,
    maxOutputTokens: 300,
  });
  onUsage(response.usage);
  if (!response.content.trim()) throw new Error("the model returned an empty summary");
  return response.content;
}
