import type { ChatMessage } from "../context/messages.ts";

/**
 * Whether the model has had untrusted content in its context: a tool result (whatever the tool, its
 * text came from outside the prompt), a message another person wrote (quoted as data), text fenced as
 * untrusted in a message (earlier thread messages, the channel the requester views), or a summary of
 * trimmed history (made from any of those). The run's history is what the model saw; a later call
 * can only have been shaped by it. Linear in the history, read when a call is decided.
 */
export function hasSeenUntrusted(messages: readonly ChatMessage[], requesterId: string): boolean {
  for (const m of messages) {
    if (m.role === "tool") return true;
    if (m.role === "system" && m.summary === true) return true;
    if (m.role !== "user") continue;
    if (m.author !== undefined && m.author !== requesterId) return true;
    if (m.content.includes("<untrusted")) return true;
    // What an image shows (a screenshot's text) came from outside the prompt too.
    if (m.images && m.images.length > 0) return true;
  }
  return false;
}
