import { callFromJsonText, scanCallValues } from "./json-call-scan.ts";
import { scanJsonValue } from "./json-calls.ts";
import { parseBuiltinCall } from "./llama3-builtin-call.ts";
import { parseMarkedCalls, type ReadAfterMarker } from "./marked-calls.ts";
import { repairBudget } from "./repair-budget.ts";
import { isSpace, skipSpaces } from "./scan-text.ts";
import type { FormatMatch, ParsedCall, ToolFormat, ToolFormatContext } from "./types.ts";
import { MAX_TEXT_CALLS } from "./types.ts";

const PYTHON_TAG = "<|python_tag|>";

/**
 * Llama 3.1 / 3.2 / 3.3 JSON tool calls: `{"name": …, "parameters": {…}}` (also `"arguments"`, or
 * `{"type": "function", "name": …, "parameters": …}`), several separated by `;`. After the
 * `<|python_tag|>` token any name is claimed, and the 3.1 built-in form `brave_search.call(query="…")`
 * is read too. Without the token (servers usually drop it) only a whole reply made of such objects
 * is claimed, each with an offered tool's name and a parameters/arguments key: an object quoted in an
 * explanation stays prose. A reply cut off inside its last object gives an incomplete call.
 */
export const llama3JsonFormat: ToolFormat = {
  id: "llama3_json",
  family: 'Llama 3.1 / 3.2 / 3.3: <|python_tag|>{"name": …, "parameters": {…}} or the bare object',
  detect: (text) => text.includes(PYTHON_TAG) || text.includes('"name"'),
  parse: (text, ctx) =>
    text.includes(PYTHON_TAG)
      ? parseMarkedCalls(text, ctx, { open: [PYTHON_TAG], close: [] }, readTagged)
      : parseBare(text, ctx),
};

/** After `<|python_tag|>`: JSON calls, or one built-in `name.call(…)`. */
const readTagged: ReadAfterMarker = (text, pos, at) => {
  const start = skipSpaces(text, pos);
  const found = scanCallValues(text, start, at.budget, { stop: at.stop });
  if (found.calls.length > 0) return found;
  const builtin = parseBuiltinCall(text, start, at.budget);
  return builtin ? { calls: [builtin.call], end: builtin.end } : undefined;
};

/** The whole reply as `{…}` objects separated by `;` or blanks, each a call to an offered tool. */
function parseBare(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const src = text.trim();
  if (!src.startsWith("{")) return undefined;
  const budget = repairBudget();
  const calls: ParsedCall[] = [];
  let i = 0;
  while (i < src.length) {
    if (calls.length >= MAX_TEXT_CALLS || src[i] !== "{") return undefined;
    const scan = scanJsonValue(src, i);
    // llama.cpp and vLLM claim an object only with its parameters/arguments key written.
    const call = callFromJsonText(src.slice(i, scan.end), scan.complete, budget, { requireArguments: true });
    if (!call || !ctx.isToolName(call.name)) return undefined;
    calls.push(call);
    i = scan.end;
    while (i < src.length && (src[i] === ";" || isSpace(src.charCodeAt(i)))) i++;
  }
  return calls.length > 0 ? { calls, prose: "" } : undefined;
}
