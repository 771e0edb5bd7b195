import { createRequire } from "node:module";
import type { ToolSpec } from "../model/chat-model.ts";
import type { ChatMessage } from "./messages.ts";

/**
 * The o200k tokenizer holds ~50 MB once loaded and takes ~0.2–0.35 s of blocking work to load, so it
 * loads on the first exact count, not at import or start-up: a prompt whose bytes (an upper bound on
 * its tokens) fit the context budget and the daily budgets is never tokenized, so a process whose
 * threads stay short never holds it, and the one that first needs it pays the load once.
 */
let bpe: ((text: string) => number) | undefined;
function countBpe(text: string): number {
  bpe ??= (createRequire(import.meta.url)("gpt-tokenizer") as typeof import("gpt-tokenizer")).countTokens;
  return bpe(text);
}

/** Loads the tokenizer now (tests and benchmarks that time counts, not the load). */
export function preloadTokenizer(): void {
  countBpe("");
}

/** Whether this process has loaded the tokenizer (tests of when it loads). */
export function tokenizerLoaded(): boolean {
  return bpe !== undefined;
}

// Per-message framing the chat format adds (role, separators), as OpenAI documents it: ~4 tokens.
const MESSAGE_OVERHEAD = 4;

// BPE merges within one pre-token cost quadratic time in its length (a 39,000-letter "word" takes
// seconds), so runs without whitespace are counted in pieces of this many characters.
const MAX_RUN = 64;
// Past this size a text is counted by its UTF-8 bytes: an upper bound (a token is at least one byte)
// that costs nothing, and a text this long is over any budget anyway.
const MAX_TOKENIZED_CHARS = 128 * 1024;

/**
 * Tokens of a text with bounded work: linear in its length whatever it holds. Exact for ordinary
 * text; a run of over MAX_RUN non-blank characters is split (counts within a token or two per piece of
 * what BPE would give); huge texts count by bytes.
 */
export function countTokens(text: string): number {
  if (text.length > MAX_TOKENIZED_CHARS) return Buffer.byteLength(text);
  let total = 0;
  let pieceStart = 0;
  let runStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) {
      runStart = -1;
    } else if (runStart < 0) {
      runStart = i;
    } else if (i - runStart >= MAX_RUN) {
      total += countBpe(text.slice(pieceStart, i));
      pieceStart = i;
      runStart = i;
    }
  }
  return pieceStart === 0 ? countBpe(text) : total + countBpe(text.slice(pieceStart));
}

// Counts of longer texts by content, across turns: a thread's history is loaded as new objects each
// turn, and re-tokenizing all of it (when it nears the budget) would make every turn cost more as
// the thread grows. Bounded by the characters held; the oldest entries go first.
const CONTENT_CACHE_MIN_CHARS = 256;
const CONTENT_CACHE_MAX_CHARS = 4_000_000;
const byContent = new Map<string, number>();
let contentCacheChars = 0;

/** `countTokens`, remembered by content for texts long enough to be worth it. */
function countTokensCached(text: string): number {
  if (text.length < CONTENT_CACHE_MIN_CHARS || text.length > MAX_TOKENIZED_CHARS) return countTokens(text);
  const hit = byContent.get(text);
  if (hit !== undefined) return hit;
  const n = countTokens(text);
  byContent.set(text, n);
  contentCacheChars += text.length;
  for (const key of byContent.keys()) {
    if (contentCacheChars <= CONTENT_CACHE_MAX_CHARS) break;
    byContent.delete(key);
    contentCacheChars -= key.length;
  }
  return n;
}

const byMessage = new WeakMap<object, number>();
const bySpecs = new WeakMap<object, number>();

/**
 * Tokens of one message (o200k encoding: exact for current OpenAI models, a close estimate for
 * others). Cached per message object, so a step re-counts only what is new, and long contents by
 * text, so a turn does not re-count the history it loaded.
 */
/**
 * What one image costs in context, as an estimate: OpenAI's high-detail pricing of a picture scaled to
 * fit 2048 px is at most about 1,100 tokens; other servers count similar orders of magnitude.
 */
export const IMAGE_TOKENS = 1_100;

export function messageTokens(m: ChatMessage): number {
  const cached = byMessage.get(m);
  if (cached !== undefined) return cached;
  let n = MESSAGE_OVERHEAD + countTokensCached(m.content ?? "");
  if (m.role === "user" && m.images) n += m.images.length * IMAGE_TOKENS;
  if (m.role === "assistant" && m.toolCalls) {
    for (const c of m.toolCalls) n += MESSAGE_OVERHEAD + countTokens(c.name) + countTokensCached(c.arguments);
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
    if (m.role === "user" && m.images) n += m.images.length * IMAGE_TOKENS;
    if (m.role === "assistant" && m.toolCalls) {
      for (const c of m.toolCalls)
        n += MESSAGE_OVERHEAD + Buffer.byteLength(c.name) + Buffer.byteLength(c.arguments);
    }
  }
  return n;
}

/** A cheap upper bound on `textTokens` (bytes: a token is at least one), needing no tokenizer. */
export function textTokensUpperBound(text: string): number {
  return MESSAGE_OVERHEAD + Buffer.byteLength(text);
}

const specsBytes = new WeakMap<object, number>();

/** A cheap upper bound on `specsTokens`, cached per specs array. */
export function specsTokensUpperBound(specs: readonly ToolSpec[]): number {
  let n = specsBytes.get(specs);
  if (n === undefined) {
    n = specs.length ? Buffer.byteLength(JSON.stringify(specs)) : 0;
    specsBytes.set(specs, n);
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
