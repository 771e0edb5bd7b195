import { callFromJsonText, scanCallValues, valueEnd } from "./json-call-scan.ts";
import { callFromObject, scanJsonValue } from "./json-calls.ts";
import { parseBuiltinCall } from "./llama3-builtin-call.ts";
import { joinProse, skipSpace } from "./marker-scan.ts";
import { parseJsonWithin, type RepairBudget, repairBudget } from "./repair-budget.ts";
import {
  type FormatMatch,
  MAX_TEXT_CALLS,
  type ParsedCall,
  type ToolFormat,
  type ToolFormatContext,
} from "./types.ts";

const PYTHON_TAG = "<|python_tag|>";
const MAX_MARKERS = 64;

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
  parse: (text, ctx) => (text.includes(PYTHON_TAG) ? parseTagged(text) : parseBare(text, ctx)),
};

function parseTagged(text: string): FormatMatch | undefined {
  const budget = repairBudget();
  const calls: ParsedCall[] = [];
  const prose: string[] = [];
  let at = 0;
  let from = 0;
  for (let seen = 0; seen < MAX_MARKERS && calls.length < MAX_TEXT_CALLS; seen++) {
    const tag = text.indexOf(PYTHON_TAG, from);
    if (tag < 0) break;
    const pos = skipSpace(text, tag + PYTHON_TAG.length);
    let found: { calls: ParsedCall[]; end: number } | undefined = scanCallValues(text, pos, budget);
    if (found.calls.length === 0) {
      const builtin = parseBuiltinCall(text, pos, budget);
      found = builtin ? { calls: [builtin.call], end: builtin.end } : undefined;
    }
    if (!found) {
      from = Math.max(tag + PYTHON_TAG.length, valueEnd(text, pos));
      continue;
    }
    prose.push(text.slice(at, tag));
    calls.push(...found.calls);
    at = found.end;
    from = found.end;
  }
  prose.push(text.slice(at));
  if (calls.length === 0) return undefined;
  return { calls: calls.slice(0, MAX_TEXT_CALLS), prose: joinProse(prose) };
}

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
    const json = src.slice(i, scan.end);
    const call = scan.complete ? completeCall(json, budget) : partialCall(json, budget);
    if (!call || !ctx.isToolName(call.name)) return undefined;
    calls.push(call);
    i = scan.end;
    while (i < src.length && (src[i] === ";" || /\s/.test(src[i]!))) i++;
  }
  return calls.length > 0 ? { calls, prose: "" } : undefined;
}

/** A closed object with a name and a parameters/arguments key (llama.cpp and vLLM require both). */
function completeCall(json: string, budget: RepairBudget): ParsedCall | undefined {
  const parsed = parseJsonWithin(json, budget);
  if (!parsed.ok || parsed.value === null || typeof parsed.value !== "object") return undefined;
  const obj = parsed.value as Record<string, unknown>;
  const fn =
    typeof obj.function === "object" && obj.function !== null
      ? (obj.function as Record<string, unknown>)
      : obj;
  if (!("parameters" in fn) && !("arguments" in fn)) return undefined;
  return callFromObject(obj, true);
}

/** A cut-off object, claimed only when the key that makes it a call was already written. */
function partialCall(json: string, budget: RepairBudget): ParsedCall | undefined {
  if (!json.includes('"parameters"') && !json.includes('"arguments"')) return undefined;
  return callFromJsonText(json, false, budget);
}
