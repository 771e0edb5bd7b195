/**
 * DeepSeek's tool-call special tokens, found in one left-to-right pass whatever their spelling:
 * full-width bars and `▁` as in the vocabulary, ASCII bars when a detokenizer or proxy normalised
 * them (`<|tool_calls_begin|>` leaks from servers), `_` or spaces for `▁`, and the R1-distill
 * variants llama.cpp accepts (`<｜tool\_calls\_begin｜>`, `<｜tool▁calls｜>`). Every token starts
 * `<` + bar + `tool`, so one indexOf of "tool" anchors them all: linear in the text, however many
 * spellings are accepted.
 */

import { nextFinder } from "./finders.ts";

export type DeepseekTokenKind = "calls_begin" | "calls_end" | "call_begin" | "call_end" | "sep";

export interface DeepseekToken {
  kind: DeepseekTokenKind;
  at: number;
  end: number;
  /** Written with the vocabulary's full-width bars (not an ASCII lookalike). */
  fullWidth: boolean;
}

const KINDS: ReadonlyArray<readonly [DeepseekTokenKind, readonly string[]]> = [
  ["calls_begin", ["calls", "begin"]],
  ["calls_end", ["calls", "end"]],
  ["call_begin", ["call", "begin"]],
  ["call_end", ["call", "end"]],
  ["sep", ["sep"]],
  ["calls_begin", ["calls"]],
];

/** The token whose `<` is at `at`, if one is written there. */
export function deepseekTokenAt(text: string, at: number): DeepseekToken | undefined {
  const bar = text[at + 1];
  if (text[at] !== "<" || (bar !== "｜" && bar !== "|") || !text.startsWith("tool", at + 2)) return undefined;
  for (const [kind, words] of KINDS) {
    let j = at + 6;
    let ok = true;
    for (const word of words) {
      const sep = separatorLength(text, j);
      if (sep === 0 || !text.startsWith(word, j + sep)) {
        ok = false;
        break;
      }
      j += sep + word.length;
    }
    if (ok && text[j] === bar && text[j + 1] === ">")
      return { kind, at, end: j + 2, fullWidth: bar === "｜" };
  }
  return undefined;
}

function separatorLength(text: string, i: number): number {
  const c = text[i];
  if (c === "▁" || c === "_" || c === " ") return 1;
  return c === "\\" && text[i + 1] === "_" ? 2 : 0;
}

/**
 * A reader of the next token at or after a position: a cached finder of the `tool` that anchors one,
 * so a scan whose positions never decrease costs one pass over the text.
 */
export function deepseekTokens(text: string): (from: number) => DeepseekToken | undefined {
  const anchors = nextFinder(text, "tool", (k) => deepseekTokenAt(text, k - 2) !== undefined);
  return (from) => {
    const k = anchors(from + 2);
    return k === -1 ? undefined : deepseekTokenAt(text, k - 2);
  };
}

/** Whether a token opens DeepSeek calls: the section token, or a call token in the vocabulary's spelling. */
export function opensCalls(token: DeepseekToken): boolean {
  // With ASCII bars `<|tool_call_begin|>` is also Kimi's token: alone it opens no DeepSeek section.
  return token.kind === "calls_begin" || (token.kind === "call_begin" && token.fullWidth);
}
