import { argumentsIn } from "./json-call-scan.ts";
import { earliest, joinProse, markerAt, markerFinder, skipSpace } from "./marker-scan.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

// Some Kimi K2 checkpoints write the singular section tokens (vLLM accepts both).
const SECTION_BEGIN = ["<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"];
const SECTION_END = ["<|tool_calls_section_end|>", "<|tool_call_section_end|>"];
const CALL_BEGIN = ["<|tool_call_begin|>"];
// The technical report spells the argument token `<|tool_arguments_begin|>`; the vocabulary has the first.
const ARGUMENT_BEGIN = ["<|tool_call_argument_begin|>", "<|tool_arguments_begin|>"];
const CALL_END = ["<|tool_call_end|>"];
const MAX_CALL_ID = 512;

/**
 * Moonshot Kimi K2: `<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
 * <|tool_call_argument_begin|>{…}<|tool_call_end|>…<|tool_calls_section_end|>`. The call id is returned
 * as the name, as written (`functions.get_weather:0`): the resolver strips the namespace and index.
 * Arguments are the raw JSON text. A call whose end token never came is complete when its JSON
 * closes; one cut off inside its id is incomplete.
 */
export const kimiK2Format: ToolFormat = {
  id: "kimi_k2",
  family:
    "Kimi K2: <|tool_calls_section_begin|><|tool_call_begin|>functions.name:N<|tool_call_argument_begin|>{json}…",
  detect: (text) => text.includes("<|tool_call_begin|>") || text.includes("_section_begin|>"),
  parse: parseKimi,
};

function parseKimi(text: string): FormatMatch | undefined {
  const nextSection = markerFinder(text, SECTION_BEGIN);
  const nextCall = markerFinder(text, CALL_BEGIN);
  const nextArgs = markerFinder(text, ARGUMENT_BEGIN);
  const nextCallEnd = markerFinder(text, CALL_END);
  const nextSectionEnd = markerFinder(text, SECTION_END);
  const nextOpening = (from: number) => earliest(nextSection(from), nextCall(from));

  const first = nextOpening(0);
  if (!first) return undefined;
  const calls: ParsedCall[] = [];
  const prose = [text.slice(0, first.at)];
  let i = first.at;
  while (calls.length < MAX_TEXT_CALLS) {
    i = skipSpace(text, i);
    let len = markerAt(text, i, SECTION_BEGIN);
    if (len > 0) {
      i += len;
      continue;
    }
    len = markerAt(text, i, SECTION_END);
    if (len > 0) {
      i += len;
      const again = nextOpening(i);
      if (!again) break;
      prose.push(text.slice(i, again.at));
      i = again.at;
      continue;
    }
    len = markerAt(text, i, CALL_BEGIN);
    if (len === 0) break; // text inside the section that is no call: it and the rest stay prose
    const idStart = i + len;
    const callEnd = nextCallEnd(idStart);
    const stop = earliest(earliest(callEnd, nextCall(idStart)), nextSectionEnd(idStart))?.at ?? text.length;
    const args = nextArgs(idStart);
    if (!args || args.at > stop) {
      // No argument token before the call's end: cut off inside the id, or no call at all.
      const id = text.slice(idStart, stop).trim();
      if (stop === text.length && id !== "" && id.length <= MAX_CALL_ID && !/\s/.test(id)) {
        calls.push({ name: id, arguments: "", complete: false });
        i = stop;
      }
      break;
    }
    const id = text.slice(idStart, args.at).trim();
    if (id === "" || id.length > MAX_CALL_ID) break;
    const closed = callEnd !== undefined && callEnd.at === stop;
    const found = argumentsIn(text.slice(args.at + args.length, stop), closed);
    calls.push({ name: id, arguments: found.args, complete: found.complete });
    prose.push(found.rest);
    i = closed ? stop + callEnd.length : stop;
  }
  prose.push(text.slice(i));
  if (calls.length === 0) return undefined;
  return { calls, prose: joinProse(prose) };
}
