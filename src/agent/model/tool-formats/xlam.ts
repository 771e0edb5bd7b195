import { scanCallValues } from "./json-call-scan.ts";
import { repairBudget } from "./repair-budget.ts";
import type { FormatMatch, ToolFormat, ToolFormatContext } from "./types.ts";
import { wholeTextJson } from "./whole-text-json.ts";

/**
 * Salesforce xLAM (and any model answering with a bare call list): the whole reply is a JSON list of
 * `{"name": …, "arguments": {…}}`, bare or in one ```json fence (a fence may also hold a single call
 * object). vLLM's xlam parser also looks after `[TOOL_CALLS]` and inside `<tool_call>`: those markers
 * belong to the mistral and hermes formats. Whole text only, and every name must be an offered tool,
 * so a JSON example in an explanation stays prose. A list cut off mid-call gives an incomplete call.
 */
export const xlamFormat: ToolFormat = {
  id: "xlam",
  family: 'xLAM, bare JSON call lists: [{"name": …, "arguments": {…}}, …] (optionally fenced)',
  detect: (text) => text.includes("[") || text.includes("```"),
  parse: parseXlam,
};

function parseXlam(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const whole = wholeTextJson(text);
  if (!whole || (!whole.json.startsWith("[") && !whole.fenced)) return undefined;
  const found = scanCallValues(whole.json, 0, repairBudget());
  if (found.calls.length === 0 || whole.json.slice(found.end).trim() !== "") return undefined;
  if (!found.calls.every((call) => ctx.isToolName(call.name))) return undefined;
  return { calls: found.calls, prose: "" };
}
