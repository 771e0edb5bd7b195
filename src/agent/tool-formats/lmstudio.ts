import { scanCallValues } from "./json-call-scan.ts";
import { skipSpace } from "./marker-scan.ts";
import { type RepairBudget, repairBudget } from "./repair-budget.ts";
import { parseTaggedSections, type SectionCalls } from "./tagged-sections.ts";
import type { ToolFormat } from "./types.ts";

const TAGS = { open: "[TOOL_REQUEST]", close: "[END_TOOL_REQUEST]" };

/**
 * LM Studio's default tool-use format, prompted into models without native tool support:
 * `[TOOL_REQUEST]{"name": …, "arguments": {…}}[END_TOOL_REQUEST]`. When LM Studio's own parser misses
 * one (a malformed call, streaming quirks), it reaches us as content. The VCP protocol's
 * `<<<[TOOL_REQUEST]>>> key:「始」value「末」` blocks share the words but hold no JSON: they stay prose.
 */
export const lmStudioFormat: ToolFormat = {
  id: "lmstudio",
  family: "LM Studio default tool use: [TOOL_REQUEST]{json}[END_TOOL_REQUEST]",
  detect: (text) => text.includes(TAGS.open),
  parse: (text) => {
    const budget = repairBudget();
    return parseTaggedSections(text, TAGS, (body) => readRequest(body, budget));
  },
};

function readRequest(body: string, budget: RepairBudget): SectionCalls {
  const found = scanCallValues(body, skipSpace(body, 0), budget);
  return { calls: found.calls, rest: body.slice(found.end) };
}
