import { countTokens } from "gpt-tokenizer";
import type { ToolSpec } from "./chat-model.ts";
import type { ChatMessage } from "./messages.ts";

// Per-message framing the chat format adds (role, separators), as OpenAI documents it: ~4 tokens.
const MESSAGE_OVERHEAD = 4;

const byMessage = new WeakMap<object, number>();
const bySpecs = new WeakMap<object, number>();

/**
 * Tokens of one message (o200k encoding: exact for current OpenAI models, a close estimate for
 * others). Cached per message object, so a step re-counts only what is new.
 */
export function messageTokens(m: ChatMessage): number {
  const cached = byMessage.get(m);
  if (cached !== undefined) return cached;
  let n = MESSAGE_OVERHEAD + countTokens(m.content ?? "");
  if (m.role === "assistant" && m.toolCalls) {
    for (const c of m.toolCalls) n += MESSAGE_OVERHEAD + countTokens(c.name) + countTokens(c.arguments);
  }
  byMessage.set(m, n);
  return n;
}

export function historyTokens(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) n += messageTokens(m);
  return n;
}

/** Tokens the tool schemas take in every request; cached per specs array. */
export function specsTokens(specs: readonly ToolSpec[]): number {
  const cached = bySpecs.get(specs);
  if (cached !== undefined) return cached;
  const n = specs.length ? countTokens(JSON.stringify(specs)) : 0;
  bySpecs.set(specs, n);
  return n;
}

/**
 * A cheap upper bound on a history's tokens: a token is at least one UTF-8 byte, so bytes plus
 * framing never undercount. When the bound fits the budget, nothing needs tokenizing at all.
 */
export function historyTokensUpperBound(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    const cached = byMessage.get(m);
    if (cached !== undefined) {
      n += cached;
      continue;
    }
    n += MESSAGE_OVERHEAD + Buffer.byteLength(m.content ?? "");
    if (m.role === "assistant" && m.toolCalls) {
      for (const c of m.toolCalls)
        n += MESSAGE_OVERHEAD + Buffer.byteLength(c.name) + Buffer.byteLength(c.arguments);
    }
  }
  return n;
}

const byText = new Map<string, number>();

/** Tokens of a fixed text such as the system prompt; cached by content (few distinct prompts). */
export function textTokens(text: string): number {
  let n = byText.get(text);
  if (n === undefined) {
    n = MESSAGE_OVERHEAD + countTokens(text);
    if (byText.size > 100) byText.clear();
    byText.set(text, n);
  }
  return n;
}
