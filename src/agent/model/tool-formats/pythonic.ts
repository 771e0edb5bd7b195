import { introducedAsExample } from "../code-regions.ts";
import { scanCallValues } from "./json-call-scan.ts";
import { parseMarkedCalls, type ReadAfterMarker } from "./marked-calls.ts";
import { type PythonCall, parsePythonCallList } from "./python-literal.ts";
import { skipSpaces } from "./scan-text.ts";
import type { FormatMatch, ParsedCall, ToolFormat, ToolFormatContext } from "./types.ts";

/** Marker pairs that own a pythonic (or, for LFM2, JSON) call list. */
const BLOCKS = {
  open: ["<|tool_call_start|>", "<|python_start|>"], // LFM2 (SGLang lfm2_detector), Llama 4 (vLLM llama4_pythonic)
  close: ["<|tool_call_end|>", "<|python_end|>"],
};

/**
 * Pythonic call lists: Llama 3.2 / Llama 4 write `[get_weather(city='SF'), f(x=1)]` as the whole
 * message (vLLM `pythonic`, SGLang `pythonic_detector`), Llama 4 sometimes inside
 * `<|python_start|>…<|python_end|>`, LFM2 inside `<|tool_call_start|>…<|tool_call_end|>` (pythonic or a
 * JSON list). Inside markers any name is a call; a bare list is a call only when it is the whole text
 * and every name is an offered tool. A call that is valid Python but not a tool call (a positional
 * argument, a non-literal value) is dropped and its well-formed siblings kept, as vLLM does. A list
 * the text ends inside holds no complete call.
 */
export const pythonicFormat: ToolFormat = {
  id: "pythonic",
  family: "Llama 3.2/4 pythonic lists, Llama 4 <|python_start|>, LFM2 <|tool_call_start|>",
  detect(text) {
    if (BLOCKS.open.some((open) => text.includes(open))) return true;
    const first = skipSpaces(text, 0);
    const c = text.charCodeAt(first);
    const startsLikeCall = c === 91 /* [ */ || c === 95 || ((c | 32) >= 97 && (c | 32) <= 122);
    return startsLikeCall && text.includes("(");
  },
  parse(text, ctx) {
    if (BLOCKS.open.some((open) => text.includes(open)))
      return parseMarkedCalls(text, ctx, BLOCKS, readBlock);
    return parseBare(text, ctx);
  },
};

/**
 * The calls in one marker block: LFM2's JSON list, scanned to its own end; or a pythonic list or
 * call, read within the block (a marker inside one of its strings cuts it: the call stays incomplete).
 */
const readBlock: ReadAfterMarker = (text, pos, at) => {
  const first = skipSpaces(text, pos);
  if (text.startsWith("{", first) || text.startsWith("[{", first)) {
    return scanCallValues(text, first, at.budget, { stop: at.stop });
  }
  const body = text.slice(first, at.limit);
  const parsed = parsePythonCallList(body);
  if (!parsed.ok || skipSpaces(body, parsed.end) < body.length) return undefined;
  const usable = parsed.calls.filter((c) => c.rejected === undefined).map(toParsedCall);
  return { calls: usable, end: first + parsed.end };
};

/** Line starts tried for a list that ends a message after its prose. */
const MAX_LIST_LINES = 4;

/**
 * A bare list (or single call) claimed only when it names only offered tools and is the whole text,
 * or, for a list, the last thing in it on lines of its own after the prose (Llama 4 writes a sentence
 * first, vLLM #22917): then the prose before it stays the assistant's text.
 */
function parseBare(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const whole = listFrom(text, skipSpaces(text, 0), ctx);
  if (whole) return { calls: whole, prose: "" };
  let tried = 0;
  for (
    let at = text.lastIndexOf("\n[");
    at > 0 && tried < MAX_LIST_LINES;
    at = text.lastIndexOf("\n[", at - 1)
  ) {
    tried++;
    if (introducedAsExample(text, at + 1)) continue;
    const calls = listFrom(text, at + 1, ctx);
    if (calls) return { calls, prose: text.slice(0, at).trim() };
  }
  return undefined;
}

/** The usable calls of a list (or call) read from `start` that runs to the end of the text, naming only offered tools. */
function listFrom(text: string, start: number, ctx: ToolFormatContext): ParsedCall[] | undefined {
  const parsed = parsePythonCallList(text, start);
  if (!parsed.ok || skipSpaces(text, parsed.end) < text.length || parsed.calls.length === 0) return undefined;
  if (!parsed.calls.every((c) => ctx.isToolName(c.name))) return undefined;
  const usable = parsed.calls.filter((c) => c.rejected === undefined);
  return usable.length === 0 ? undefined : usable.map(toParsedCall);
}

function toParsedCall(call: PythonCall): ParsedCall {
  return { name: call.name, arguments: call.arguments, complete: call.complete };
}
