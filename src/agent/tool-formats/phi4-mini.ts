import { scanCallValues, valueEnd } from "./json-call-scan.ts";
import { joinProse, skipSpace } from "./marker-scan.ts";
import { repairBudget } from "./repair-budget.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

const MARKER = "functools";
const MAX_MARKERS = 64;

/**
 * Phi-4-mini (its `functools` token) and FireFunction v2 (` functools[`): the word `functools`
 * directly followed by a JSON list of calls, `functools[{"name": …, "arguments": {…}}]`. The list ends
 * where its brackets close; the text around it is prose. `functools` followed by anything but a list
 * of calls (Python prose about the module) is left alone.
 */
export const phi4MiniFormat: ToolFormat = {
  id: "phi4_mini",
  family: "Phi-4-mini, FireFunction v2: functools[{json}, …]",
  detect: (text) => text.includes(MARKER),
  parse: parsePhi4Mini,
};

function parsePhi4Mini(text: string): FormatMatch | undefined {
  const budget = repairBudget();
  const calls: ParsedCall[] = [];
  const prose: string[] = [];
  let at = 0;
  let from = 0;
  for (let seen = 0; seen < MAX_MARKERS && calls.length < MAX_TEXT_CALLS; seen++) {
    const marker = text.indexOf(MARKER, from);
    if (marker < 0) break;
    from = marker + MARKER.length;
    const list = skipSpace(text, from);
    if (text[list] !== "[") continue;
    const found = scanCallValues(text, list, budget);
    if (found.calls.length === 0) {
      from = valueEnd(text, list); // a marker inside a list that is no call list is no marker
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
