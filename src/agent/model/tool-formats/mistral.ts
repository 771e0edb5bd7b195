import { scanCallValues } from "./json-call-scan.ts";
import { type StopAt, scanJsonValue } from "./json-calls.ts";
import { markedCallsFormat } from "./marked-calls.ts";
import { isNameChar, runEnd } from "./name-chars.ts";
import { skipSpaces } from "./scan-text.ts";
import { MAX_TEXT_CALLS, type ParsedCall } from "./types.ts";

const ARGS = "[ARGS]";
const CALL_ID = "[CALL_ID]";
const MAX_NAME = 256;

/**
 * Mistral's `[TOOL_CALLS]` token, in each generation's syntax:
 * - before tokenizer v11 (Mistral 7B v0.3, Nemo): a JSON list, `[TOOL_CALLS][{"name": …, "arguments":
 *   {…}, "id": "…"}]`;
 * - v11 (Mistral Small 3.2): `[TOOL_CALLS]name[CALL_ID]abc123XYZ[ARGS]{…}`, or `name{…}` once the
 *   detokenizer dropped the control tokens;
 * - v13+ (Magistral, Devstral, Ministral 3): `[TOOL_CALLS]name[ARGS]{…}`.
 * Parallel calls repeat `[TOOL_CALLS]` or write several `name[ARGS]{…}` in a row. Each JSON ends where
 * its brackets close; text before, between and after is prose. A name with nothing after it at the
 * end of the text is a call cut off before its arguments.
 */
export const mistralFormat = markedCallsFormat({
  id: "mistral",
  family:
    "Mistral 7B v0.3 / Nemo ([TOOL_CALLS][…]), Small 3.2, Magistral, Devstral ([TOOL_CALLS]name[ARGS]{…})",
  markers: { open: ["[TOOL_CALLS]"], close: [] },
  read: (text, pos, at) => {
    const start = skipSpaces(text, pos);
    const c = text[start];
    if (c === "[" || c === "{") return scanCallValues(text, start, at.budget, { stop: at.stop });
    return namedCalls(text, start, at.stop);
  },
});

/** `name[ARGS]{…}` (or `name[CALL_ID]id[ARGS]{…}`, `name{…}`), one or several in a row, from `pos`. */
function namedCalls(text: string, pos: number, stop: StopAt): { calls: ParsedCall[]; end: number } {
  const calls: ParsedCall[] = [];
  let end = pos;
  let i = pos;
  while (calls.length < MAX_TEXT_CALLS) {
    const nameStart = calls.length === 0 ? i : skipSpaces(text, i);
    const nameEnd = runEnd(text, nameStart, isNameChar, MAX_NAME + 1);
    if (nameEnd === nameStart || nameEnd - nameStart > MAX_NAME) break;
    const name = text.slice(nameStart, nameEnd);
    let j = skipSpaces(text, nameEnd);
    let marked = false;
    if (text.startsWith(CALL_ID, j)) {
      j = skipSpaces(text, runEnd(text, j + CALL_ID.length, isNameChar));
      marked = true;
    }
    if (text.startsWith(ARGS, j)) {
      j = skipSpaces(text, j + ARGS.length);
      marked = true;
    }
    // After a call, a word then a space then `{` is prose, not the next call.
    if (!marked && calls.length > 0 && j !== nameEnd) break;
    if (text[j] === "{") {
      const scan = scanJsonValue(text, j, stop);
      calls.push({ name, arguments: text.slice(j, scan.end), complete: scan.complete });
      end = scan.end;
      i = scan.end;
      if (!scan.complete) break;
      continue;
    }
    // Cut off after the name (and maybe `[ARGS]`): the call was never finished.
    if (j >= text.length && (marked || calls.length === 0)) {
      calls.push({ name, arguments: "", complete: false });
      end = text.length;
    }
    break;
  }
  return { calls, end };
}
