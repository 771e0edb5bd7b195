import { anyFinder, firstOf } from "./finders.ts";
import { stopAtMarkers } from "./json-calls.ts";
import { proseOutside, type Span } from "./prose.ts";
import { markerAt, skipSpaces } from "./scan-text.ts";
import { argumentsAt } from "./token-arguments.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

// Some Kimi K2 checkpoints write the singular section tokens (vLLM accepts both).
const SECTION_BEGIN = ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"];
const SECTION_END = ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"];
const CALL_BEGIN = ["<|tool_call_begin|>"];
// The technical report spells the argument token `<|tool_arguments_begin|>`; the vocabulary has the first.
const ARGUMENT_BEGIN = ["<|tool_call_argument_begin|>", "<|tool_arguments_begin|>"];
const CALL_END = ["<|tool_call_end|>"];
const TOKENS = [...SECTION_BEGIN, ...SECTION_END, ...CALL_BEGIN, ...ARGUMENT_BEGIN, ...CALL_END];
const MAX_CALL_ID = 512;

/**
 * Moonshot Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
 * <|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`. The call id is returned
 * as the name, as written (`functions.get_weather:0`): the resolver strips the namespace and index.
 * Arguments are the raw JSON text, scanned to their own end (a token inside a string is text). A call
 * is complete when its JSON closed (or, for arguments that are no JSON, when its end token came); one
 * cut off inside its id is incomplete.
 */
export const kimiK2Format: ToolFormat = {
  id: "kimi_k2",
  family:
    "Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.name:N<|tool_call_argument_begin|>{json}…",
  detect: (text) => text.includes("<|tool_call_begin|>") || text.includes("_section_begin|>"),
  parse: parseKimi,
};

function parseKimi(text: string): FormatMatch | undefined {
  const nextOpening = anyFinder(text, [...SECTION_BEGIN, ...CALL_BEGIN]);
  const nextCall = anyFinder(text, CALL_BEGIN);
  const nextArgs = anyFinder(text, ARGUMENT_BEGIN);
  const nextCallEnd = anyFinder(text, CALL_END);
  const nextSectionEnd = anyFinder(text, SECTION_END);
  const stop = stopAtMarkers(text, TOKENS);

  let i = nextOpening(0);
  if (i === -1) return undefined;
  const calls: ParsedCall[] = [];
  const spans: Span[] = [];
  const consume = (at: number, length: number) => {
    spans.push({ start: at, end: at + length });
    return at + length;
  };
  while (calls.length < MAX_TEXT_CALLS) {
    i = skipSpaces(text, i);
    let len = markerAt(text, i, SECTION_BEGIN);
    if (len > 0) {
      i = consume(i, len);
      continue;
    }
    len = markerAt(text, i, SECTION_END);
    if (len > 0) {
      i = nextOpening(consume(i, len));
      if (i === -1) break;
      continue;
    }
    len = markerAt(text, i, CALL_BEGIN);
    if (len === 0) break; // text inside the section that is no call: it and the rest stay prose
    const idStart = i + len;
    const callEnd = nextCallEnd(idStart);
    const next = firstOf(callEnd, nextCall(idStart), nextSectionEnd(idStart));
    const limit = next === -1 ? text.length : next;
    const args = nextArgs(idStart);
    if (args === -1 || args > limit) {
      // No argument token before the call's end: cut off inside the id, or no call at all.
      const id = text.slice(idStart, limit).trim();
      if (limit === text.length && id !== "" && id.length <= MAX_CALL_ID && !/\s/.test(id)) {
        calls.push({ name: id, arguments: "", complete: false });
        spans.push({ start: i, end: limit });
      }
      break;
    }
    const id = text.slice(idStart, args).trim();
    if (id === "" || id.length > MAX_CALL_ID) break;
    const argsStart = args + markerAt(text, args, ARGUMENT_BEGIN);
    const found = argumentsAt({
      text,
      from: argsStart,
      limit,
      closedAtLimit: next !== -1 && next === callEnd,
      stop,
    });
    calls.push({ name: id, arguments: found.args, complete: found.complete });
    spans.push({ start: i, end: found.end });
    // The call's end token, after the arguments or after prose written behind them.
    const end = nextCallEnd(found.end);
    const beforeEnd = firstOf(end, nextCall(found.end), nextSectionEnd(found.end));
    i = end !== -1 && beforeEnd === end ? consume(end, CALL_END[0]!.length) : found.end;
  }
  if (calls.length === 0) return undefined;
  return { calls, prose: proseOutside(text, spans) };
}
