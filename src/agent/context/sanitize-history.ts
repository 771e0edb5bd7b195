import type { ChatMessage, ToolMessage } from "./messages.ts";

export const INTERRUPTED_RESULT =
  "No result: this call was interrupted before it finished (it may or may not have taken effect). Do not assume it succeeded.";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/**
 * Makes a history safe to send: every assistant message with tool calls is followed by exactly one
 * tool message per call id, in call order (a missing one gets a synthetic "interrupted" result);
 * tool messages that answer no call, or answer one twice, are dropped; unknown roles are dropped.
 * Pure: returns a new array, leaves the input as it was.
 */
export function sanitizeHistory(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  let i = 0;
  while (i < messages.length) {
    const m = messages[i]!;
    i++;
    if (!m || typeof m !== "object" || !ROLES.has(m.role)) continue;
    if (m.role === "tool") continue; // an orphan: it follows no call message
    if (m.role !== "assistant" || !m.toolCalls || m.toolCalls.length === 0) {
      out.push(m.role === "assistant" && m.toolCalls ? { role: "assistant", content: m.content ?? "" } : m);
      continue;
    }
    // Collect the tool messages that follow this call message.
    const results = new Map<string, ToolMessage>();
    while (i < messages.length && messages[i]?.role === "tool") {
      const t = messages[i] as ToolMessage;
      if (!results.has(t.toolCallId)) results.set(t.toolCallId, t);
      i++;
    }
    const calls = m.toolCalls.filter((c, k, all) => all.findIndex((x) => x.id === c.id) === k);
    out.push(calls.length === m.toolCalls.length ? m : { ...m, toolCalls: calls });
    for (const call of calls) {
      out.push(
        results.get(call.id) ?? {
          role: "tool",
          toolCallId: call.id,
          name: call.name,
          content: INTERRUPTED_RESULT,
        },
      );
    }
  }
  return out;
}

/** True when `messages` already satisfies the rules `sanitizeHistory` enforces. */
export function isValidHistory(messages: readonly ChatMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (!ROLES.has(m.role)) return false;
    if (m.role === "tool") {
      return false; // tool messages are only valid when consumed right after their call message below
    }
    if (m.role === "assistant" && m.toolCalls && m.toolCalls.length > 0) {
      const ids = m.toolCalls.map((c) => c.id);
      if (new Set(ids).size !== ids.length) return false;
      for (const id of ids) {
        const t = messages[++i];
        if (t?.role !== "tool" || t.toolCallId !== id) return false;
      }
    }
  }
  return true;
}
