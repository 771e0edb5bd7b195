import { scanCallValues, valueEnd } from "./json-call-scan.ts";
import { scanJsonValue } from "./json-calls.ts";
import { joinProse, skipSpace } from "./marker-scan.ts";
import { repairBudget } from "./repair-budget.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

const TOOL_CALLS = "[TOOL_CALLS]";
const ARGS = "[ARGS]";
const CALL_ID = "[CALL_ID]";
const MAX_MARKERS = 64;
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
export const mistralFormat: ToolFormat = {
  id: "mistral",
  family:
    "Mistral 7B v0.3 / Nemo ([TOOL_CALLS][…]), Small 3.2, Magistral, Devstral ([TOOL_CALLS]name[ARGS]{…})",
  detect: (text) => text.includes(TOOL_CALLS),
  parse: parseMistral,
};

function parseMistral(text: string): FormatMatch | undefined {
  const budget = repairBudget();
  const calls: ParsedCall[] = [];
  const prose: string[] = [];
  let at = 0;
  let from = 0;
  for (let seen = 0; seen < MAX_MARKERS && calls.length < MAX_TEXT_CALLS; seen++) {
    const marker = text.indexOf(TOOL_CALLS, from);
    if (marker < 0) break;
    const pos = skipSpace(text, marker + TOOL_CALLS.length);
    const c = text[pos];
    const found = c === "[" || c === "{" ? scanCallValues(text, pos, budget) : namedCalls(text, pos);
    if (found.calls.length === 0) {
      from = Math.max(marker + TOOL_CALLS.length, valueEnd(text, pos));
      continue;
    }
    prose.push(text.slice(at, marker));
    calls.push(...found.calls);
    at = found.end;
    from = found.end;
  }
  prose.push(text.slice(at));
  if (calls.length === 0) return undefined;
  return { calls: calls.slice(0, MAX_TEXT_CALLS), prose: joinProse(prose) };
}

/** `name[ARGS]{…}` (or `name[CALL_ID]id[ARGS]{…}`, `name{…}`), one or several in a row, from `pos`. */
function namedCalls(text: string, pos: number): { calls: ParsedCall[]; end: number } {
  const calls: ParsedCall[] = [];
  let end = pos;
  let i = pos;
  while (calls.length < MAX_TEXT_CALLS) {
    const nameStart = calls.length === 0 ? i : skipSpace(text, i);
    let nameEnd = nameStart;
    while (nameEnd < text.length && nameEnd - nameStart <= MAX_NAME && isNameChar(text.charCodeAt(nameEnd))) {
      nameEnd++;
    }
    if (nameEnd === nameStart || nameEnd - nameStart > MAX_NAME) break;
    const name = text.slice(nameStart, nameEnd);
    let j = skipSpace(text, nameEnd);
    let marked = false;
    if (text.startsWith(CALL_ID, j)) {
      j += CALL_ID.length;
      while (j < text.length && isNameChar(text.charCodeAt(j))) j++;
      j = skipSpace(text, j);
      marked = true;
    }
    if (text.startsWith(ARGS, j)) {
      j = skipSpace(text, j + ARGS.length);
      marked = true;
    }
    // After a call, a word then a space then `{` is prose, not the next call.
    if (!marked && calls.length > 0 && j !== nameEnd) break;
    if (text[j] === "{") {
      const scan = scanJsonValue(text, j);
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

/** Letters, digits, `_`, `-` and `.`: what tool names (and Mistral's call ids) are made of. */
function isNameChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 95 /* _ */ ||
    c === 45 /* - */ ||
    c === 46 /* . */
  );
}
