import { scanCallValues, valueEnd } from "./json-call-scan.ts";
import { joinProse, markerFinder, skipSpace } from "./marker-scan.ts";
import { repairBudget } from "./repair-budget.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

const TOOL_CALL_TOKEN = "<|tool_call|>";
const FUNCTION_CALL_TAG = "<function_call>";
const FUNCTION_CALL_CLOSE = "</function_call>";
const MAX_MARKERS = 64;

/**
 * IBM Granite before 3.1: Granite 3.0 writes the special token `<|tool_call|>` then a JSON list of
 * calls (`<|tool_call|>[{"name": …, "arguments": {…}}]`); granite-20b-functioncalling writes one
 * `<function_call> {…}` per call, several in a row, without a closing tag. The JSON after each marker
 * ends where its brackets close; what follows is prose. (Granite 3.1+ writes `<tool_call>[…]`, read by
 * the hermes format.)
 */
export const graniteFormat: ToolFormat = {
  id: "granite",
  family: "Granite 3.0 (<|tool_call|>[…]), granite-20b-functioncalling (<function_call> {…})",
  detect: (text) => text.includes(TOOL_CALL_TOKEN) || text.includes(FUNCTION_CALL_TAG),
  parse: parseGranite,
};

function parseGranite(text: string): FormatMatch | undefined {
  const next = markerFinder(text, [TOOL_CALL_TOKEN, FUNCTION_CALL_TAG]);
  const budget = repairBudget();
  const calls: ParsedCall[] = [];
  const prose: string[] = [];
  let at = 0;
  let from = 0;
  for (let seen = 0; seen < MAX_MARKERS && calls.length < MAX_TEXT_CALLS; seen++) {
    const hit = next(from);
    if (!hit) break;
    const json = skipSpace(text, hit.at + hit.length);
    const found = scanCallValues(text, json, budget);
    if (found.calls.length === 0) {
      // Not a call: the marker stays prose, and so does any marker inside the JSON that followed it.
      from = Math.max(hit.at + hit.length, valueEnd(text, json));
      continue;
    }
    prose.push(text.slice(at, hit.at));
    calls.push(...found.calls);
    at = found.end;
    // A model that learned Hermes habits may close the tag; the closing tag is no prose.
    const after = skipSpace(text, at);
    if (text.startsWith(FUNCTION_CALL_CLOSE, after)) at = after + FUNCTION_CALL_CLOSE.length;
    from = at;
  }
  prose.push(text.slice(at));
  if (calls.length === 0) return undefined;
  return { calls: calls.slice(0, MAX_TEXT_CALLS), prose: joinProse(prose) };
}
