import { nextFinder } from "./finders.ts";
import { gemmaArgsEnd, parseGemmaArgs } from "./gemma4-args.ts";
import { isQualifiedNameChar, runEnd } from "./name-chars.ts";
import { proseOutside, type Span } from "./prose.ts";
import { skipSpaces } from "./scan-text.ts";
import {
  type FormatMatch,
  MAX_TEXT_CALLS,
  type ParsedCall,
  type ToolFormat,
  type ToolFormatContext,
} from "./types.ts";

const OPEN = "<|tool_call>";
const CALL = "call:";
/** What may close a call: the real end token, `<turn|>` (seen in vLLM's tests), the response opener. */
const CLOSERS = ["<tool_call|>", "<turn|>", "<|tool_response>"];
const THOUGHT_OPEN = "<|channel>";
const THOUGHT_CLOSE = "<channel|>";
/** Longest function name read before giving up on a `call:` that has no `{`. */
const MAX_NAME = 256;

/**
 * Gemma 4's native calls: `<|tool_call>call:get_weather{location:<|"|>Paris<|"|>,days:3}<tool_call|>`
 * (vLLM `gemma4_tool_parser`, SGLang `gemma4_detector`): bare keys, `<|"|>`-delimited strings, several
 * calls back to back, sometimes closed by `<turn|>` or with a stray `:` after the opener. Inside the
 * marker any name is a call. Servers that strip special tokens leave `call:name{…}` alone: that is
 * claimed only as the whole text and with offered names. The thought channel
 * (`<|channel>thought…<channel|>`) is reasoning, kept out of the prose. A call whose braces closed is
 * complete even without its end token.
 */
export const gemma4Format: ToolFormat = {
  id: "gemma4",
  family: "Gemma 4 <|tool_call>call:name{…}<tool_call|>",
  detect(text) {
    return text.includes(OPEN) || text.includes(CALL) || text.includes(FUNCTION_GEMMA.open);
  },
  parse(text, ctx) {
    if (text.includes(FUNCTION_GEMMA.open)) return parseFunctionGemma(text, ctx);
    const thoughts = thoughtSpans(text);
    if (text.includes(OPEN)) return parseMarked(text, thoughts);
    return parseBare(text, thoughts, ctx);
  },
};

/** FunctionGemma writes the same calls with its own tokens: `<start_function_call>`, `<escape>` quotes. */
const FUNCTION_GEMMA = { open: "<start_function_call>", close: "<end_function_call>", quote: "<escape>" };

/**
 * FunctionGemma: `<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>`,
 * read as Gemma 4 once its tokens are spelled as Gemma 4's (the same grammar, other token names).
 */
function parseFunctionGemma(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const spelled = text
    .replaceAll(FUNCTION_GEMMA.open, OPEN)
    .replaceAll(FUNCTION_GEMMA.close, CLOSERS[0]!)
    .replaceAll(FUNCTION_GEMMA.quote, '<|"|>');
  const match = gemma4Format.parse(spelled, ctx);
  return match && { ...match, prose: match.prose.replaceAll('<|"|>', FUNCTION_GEMMA.quote) };
}

interface CallsRead {
  calls: ParsedCall[];
  end: number;
  /** False when the text ended inside a call (name or braces). */
  finished: boolean;
}

/** `call:name{…}` repeated from `pos` (whitespace between); stops at the first thing that is not one. */
function readCalls(text: string, pos: number, room: number): CallsRead {
  const calls: ParsedCall[] = [];
  let end = pos;
  while (calls.length < room) {
    const at = skipSpaces(text, end);
    if (!text.startsWith(CALL, at)) break;
    const nameStart = at + CALL.length;
    const nameEnd = runEnd(text, nameStart, isGemmaNameChar, MAX_NAME);
    const name = text.slice(nameStart, nameEnd).trim();
    if (nameEnd === text.length) {
      // Cut off inside the name: an incomplete call (never run) so the reply is not shown as text.
      if (name !== "") calls.push({ name, arguments: {}, complete: false });
      return { calls, end: text.length, finished: name === "" };
    }
    if (name === "" || text.charCodeAt(nameEnd) !== 123 /* { */) break;
    const brace = nameEnd;
    const close = gemmaArgsEnd(text, brace);
    if (close === -1) {
      calls.push({ name, arguments: parseGemmaArgs(text.slice(brace + 1)) ?? {}, complete: false });
      return { calls, end: text.length, finished: false };
    }
    const body = text.slice(brace + 1, close - 1);
    calls.push({ name, arguments: parseGemmaArgs(body) ?? body, complete: true });
    end = close;
  }
  return { calls, end, finished: true };
}

function parseMarked(text: string, thoughts: Span[]): FormatMatch | undefined {
  const opens = nextFinder(text, OPEN);
  const calls: ParsedCall[] = [];
  const spans: Span[] = [...thoughts];
  let thought = 0;
  let at = 0;
  while (calls.length < MAX_TEXT_CALLS) {
    const start = opens(at);
    if (start === -1) break;
    at = start + OPEN.length;
    while (thought < thoughts.length && thoughts[thought]!.end <= start) thought++;
    if (thought < thoughts.length && thoughts[thought]!.start <= start) continue;
    let pos = skipSpaces(text, at);
    if (text.charCodeAt(pos) === 58 /* stray ":" */) pos = skipSpaces(text, pos + 1);
    const read = readCalls(text, pos, MAX_TEXT_CALLS - calls.length);
    if (read.calls.length === 0) continue;
    calls.push(...read.calls);
    const end = read.finished ? afterCloser(text, read.end) : text.length;
    spans.push({ start, end });
    at = end;
  }
  if (calls.length === 0) return undefined;
  return { calls, prose: proseOutside(text, sortSpans(spans)) };
}

/** Stripped special tokens: the whole text (after any thought) is `call:…{…}` and names offered tools. */
function parseBare(text: string, thoughts: Span[], ctx: ToolFormatContext): FormatMatch | undefined {
  let pos = 0;
  for (const span of thoughts) {
    if (skipSpaces(text, pos) !== span.start) break;
    pos = span.end;
  }
  const calls: ParsedCall[] = [];
  let end = pos;
  for (;;) {
    const read = readCalls(text, end, MAX_TEXT_CALLS - calls.length);
    if (read.calls.length === 0) break;
    calls.push(...read.calls);
    end = read.finished ? afterCloser(text, read.end) : text.length;
    if (!read.finished || calls.length >= MAX_TEXT_CALLS) break;
  }
  if (calls.length === 0 || skipSpaces(text, end) < text.length) return undefined;
  if (!calls.every((c) => ctx.isToolName(c.name))) return undefined;
  return { calls, prose: proseOutside(text, sortSpans([...thoughts, { start: pos, end }])) };
}

/** A name character, or the blank some checkpoints write before the `{` (trimmed off the name). */
function isGemmaNameChar(c: number): boolean {
  return isQualifiedNameChar(c) || c === 32;
}

/** Past the end token (or `<turn|>`, or the response opener) written after a call, if any. */
function afterCloser(text: string, end: number): number {
  const at = skipSpaces(text, end);
  for (const closer of CLOSERS) if (text.startsWith(closer, at)) return at + closer.length;
  return end;
}

/** `<|channel>…<channel|>` spans (to the end when never closed): reasoning, not prose. */
function thoughtSpans(text: string): Span[] {
  const spans: Span[] = [];
  let at = 0;
  for (;;) {
    const start = text.indexOf(THOUGHT_OPEN, at);
    if (start === -1) return spans;
    const close = text.indexOf(THOUGHT_CLOSE, start + THOUGHT_OPEN.length);
    const end = close === -1 ? text.length : close + THOUGHT_CLOSE.length;
    spans.push({ start, end });
    at = end;
  }
}

function sortSpans(spans: Span[]): Span[] {
  return spans.sort((a, b) => a.start - b.start);
}
