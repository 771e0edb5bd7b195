import type { ChatMessage, ToolCall } from "../../context/messages.ts";
import type { ToolSpec } from "../chat-model.ts";
import { errorText } from "./http-probe.ts";
import { type ChatSettings, PROBE_TOOL_NAME, postChat, probeMessages } from "./tool-call-probe.ts";
import type { ToolResultFinding } from "./types.ts";

/** What the probe's tool "returned": the shape `get_current_time` answers with. */
function resultFor(call: ToolCall, now: Date): string {
  if (call.name !== PROBE_TOOL_NAME) return JSON.stringify({ ok: true });
  return JSON.stringify({ timezone: "UTC", iso: now.toISOString(), local: now.toUTCString() });
}

/**
 * The second half of a tool round trip, as the bot sends it: the question, the assistant message with
 * the calls the model made, and one `tool` message per call id. Accepted = 200 with a completion. Some templates and servers refuse the `tool` role or the call history
 * (a 400), and then no tool result ever reaches the model.
 */
export async function probeToolResult(
  s: ChatSettings,
  specs: readonly ToolSpec[],
  calls: ToolCall[],
  now: Date = new Date(),
): Promise<ToolResultFinding> {
  const messages: ChatMessage[] = [
    ...probeMessages(),
    { role: "assistant", content: "", toolCalls: calls },
    ...calls.map(
      (c): ChatMessage => ({ role: "tool", toolCallId: c.id, name: c.name, content: resultFor(c, now) }),
    ),
  ];
  const answer = await postChat(s, messages, specs);
  if (!answer.ok) return { accepted: false, error: answer.error };
  if (answer.status >= 400) {
    return { accepted: false, status: answer.status, error: `HTTP ${answer.status}: ${errorText(answer)}` };
  }
  const choices = (answer.json as { choices?: unknown } | undefined)?.choices;
  const message = Array.isArray(choices)
    ? (choices[0] as { message?: unknown } | undefined)?.message
    : undefined;
  if (typeof message !== "object" || message === null) {
    return { accepted: false, status: answer.status, error: "the answer is not a chat completion" };
  }
  return { accepted: true, status: answer.status };
}
