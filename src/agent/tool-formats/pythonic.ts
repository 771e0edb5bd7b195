import { callsFromJsonText, jsonCloses } from "./json-calls.ts";
import { type PythonCall, parsePythonCallList } from "./python-literal.ts";
import { isSpace, nextFinder, proseOutside, type Span, skipSpaces } from "./scan-text.ts";
import {
  type FormatMatch,
  MAX_TEXT_CALLS,
  type ParsedCall,
  type ToolFormat,
  type ToolFormatContext,
} from "./types.ts";

/** Marker pairs that own a pythonic (or, for LFM2, JSON) call list. */
const BLOCKS = [
  { open: "<|tool_call_start|>", close: "<|tool_call_end|>" }, // LFM2 (SGLang lfm2_detector)
  { open: "<|python_start|>", close: "<|python_end|>" }, // Llama 4 (vLLM llama4_pythonic)
] as const;

/**
 * Pythonic call lists: Llama 3.2 / Llama 4 write `[get_weather(city='SF'), f(x=1)]` as the whole
 * message (vLLM `pythonic`, SGLang `pythonic_detector`), Llama 4 sometimes inside
 * `<|python_start|>…<|python_end|>`, LFM2 inside `<|tool_call_start|>…<|tool_call_end|>` (pythonic or a
 * JSON list). Inside markers any name is a call; a bare list is a call only when it is the whole text
 * and every name is an offered tool. A call that is valid Python but not a tool call (a positional
 * argument, a non-literal value) is dropped and its well-formed siblings kept, as vLLM does.
 */
export const pythonicFormat: ToolFormat = {
  id: "pythonic",
  family: "Llama 3.2/4 pythonic lists, Llama 4 <|python_start|>, LFM2 <|tool_call_start|>",
  detect(text) {
    if (BLOCKS.some((b) => text.includes(b.open))) return true;
    const first = skipSpaces(text, 0);
    const c = text.charCodeAt(first);
    const startsLikeCall = c === 91 /* [ */ || c === 95 || ((c | 32) >= 97 && (c | 32) <= 122);
    return startsLikeCall && text.includes("(");
  },
  parse(text, ctx) {
    if (BLOCKS.some((b) => text.includes(b.open))) return parseBlocks(text);
    return parseBare(text, ctx);
  },
};

function parseBlocks(text: string): FormatMatch | undefined {
  const opens = BLOCKS.map((b) => nextFinder(text, b.open));
  const closes = BLOCKS.map((b) => nextFinder(text, b.close));
  const calls: ParsedCall[] = [];
  const spans: Span[] = [];
  let at = 0;
  while (calls.length < MAX_TEXT_CALLS) {
    let kind = -1;
    let start = -1;
    for (let k = 0; k < BLOCKS.length; k++) {
      const found = opens[k]!(at);
      if (found !== -1 && (start === -1 || found < start)) [kind, start] = [k, found];
    }
    if (kind === -1) break;
    const bodyStart = start + BLOCKS[kind]!.open.length;
    const close = closes[kind]!(bodyStart);
    const bodyEnd = close === -1 ? text.length : close;
    const end = close === -1 ? text.length : close + BLOCKS[kind]!.close.length;
    const found = blockCalls(text.slice(bodyStart, bodyEnd));
    if (found) {
      calls.push(...found.slice(0, MAX_TEXT_CALLS - calls.length));
      spans.push({ start, end });
    }
    at = end;
  }
  if (calls.length === 0) return undefined;
  return { calls, prose: proseOutside(text, spans) };
}

/** The calls in one marker block (a pythonic list or call, or LFM2's JSON list); undefined if neither. */
function blockCalls(body: string): ParsedCall[] | undefined {
  const first = skipSpaces(body, 0);
  if (body.startsWith("{", first) || body.startsWith("[{", first)) {
    // Decide completeness by scanning before the lenient parse can "complete" a cut-off list.
    return callsFromJsonText(body, jsonCloses(body));
  }
  const parsed = parsePythonCallList(body, first);
  if (!parsed.ok || !onlySpaceAfter(body, parsed.end)) return undefined;
  const usable = parsed.calls.filter((c) => c.rejected === undefined).map(toParsedCall);
  return usable.length > 0 ? usable : undefined;
}

/** A bare list (or single call) claimed only when it is the whole text and names only offered tools. */
function parseBare(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const parsed = parsePythonCallList(text, skipSpaces(text, 0));
  if (!parsed.ok || !onlySpaceAfter(text, parsed.end) || parsed.calls.length === 0) return undefined;
  if (!parsed.calls.every((c) => ctx.isToolName(c.name))) return undefined;
  const usable = parsed.calls.filter((c) => c.rejected === undefined);
  if (usable.length === 0) return undefined;
  return { calls: usable.map(toParsedCall), prose: "" };
}

function toParsedCall(call: PythonCall): ParsedCall {
  return { name: call.name, arguments: call.arguments, complete: call.complete };
}

function onlySpaceAfter(text: string, end: number): boolean {
  for (let i = end; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}
