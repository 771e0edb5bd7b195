/**
 * Chat-template tokens that leak into `content` when a server does not strip them (a tool parser
 * off, `skip_special_tokens=false`, a raw completion endpoint behind a proxy): end-of-turn tokens
 * after a call, `<|/tool_call|>` left behind a call, a harmony `<|end|>`. They are never part of an
 * answer and, sent back in history, can confuse the template on the next request.
 */

/** End-of-turn and end-of-sequence tokens of the common templates (Llama 3, ChatML, Gemma, Phi, harmony, DeepSeek). */
const END_TOKENS = [
  "<|eot_id|>",
  "<|eom_id|>",
  "<|im_end|>",
  "<|endoftext|>",
  "<|end_of_text|>",
  "<|end|>",
  "<|return|>",
  "<|call|>",
  "<end_of_turn>",
  "<eos>",
  "</s>",
  "<｜end▁of▁sentence｜>",
];

/** End tokens at the end of the text (repeated, with whitespace between), removed. */
export function stripTrailingEndTokens(text: string): string {
  let out = text.trimEnd();
  for (let changed = true; changed; ) {
    changed = false;
    for (const token of END_TOKENS) {
      if (out.endsWith(token)) {
        out = out.slice(0, -token.length).trimEnd();
        changed = true;
      }
    }
  }
  return out;
}

/** `<|word|>` / `<|/word|>` and DeepSeek's full-width `<｜…｜>` tokens: bounded, so linear. */
const SPECIAL_TOKEN = /<\|\/?[\w.:-]{1,40}\|>|<｜[^｜<>\n]{1,40}｜>/g;

/** The answer text with every leaked special token removed (after calls were taken out of it). */
export function stripSpecialTokens(text: string): string {
  if (!text.includes("<|") && !text.includes("<｜")) return stripTrailingEndTokens(text);
  return stripTrailingEndTokens(text.replace(SPECIAL_TOKEN, "")).trim();
}
