import { scanCallValues } from "./json-call-scan.ts";
import { skipSpace } from "./marker-scan.ts";
import { type RepairBudget, repairBudget } from "./repair-budget.ts";
import { parseTaggedSections, type SectionCalls } from "./tagged-sections.ts";
import type { ToolFormat } from "./types.ts";

const TAGS = { open: "<tool_calls>", close: "</tool_calls>" };

/**
 * `<tool_calls>…</tool_calls>` holding JSON calls: AI21 Jamba and ServiceNow Apriel write one list
 * (`<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>`), MiniMax-M1 one object per line.
 * A value in the section that is not a call is skipped (as vLLM's MiniMax parser skips a broken line);
 * a section never closed is complete as far as its JSON closes.
 */
export const toolCallsTagFormat: ToolFormat = {
  id: "tool_calls_tag",
  family: "Jamba, Apriel ([…]), MiniMax-M1 (one object per line): <tool_calls>…</tool_calls>",
  detect: (text) => text.includes(TAGS.open),
  parse: (text) => {
    const budget = repairBudget();
    return parseTaggedSections(text, TAGS, (body) => readSection(body, budget));
  },
};

function readSection(body: string, budget: RepairBudget): SectionCalls {
  const found = scanCallValues(body, skipSpace(body, 0), budget, { skipNonCalls: true });
  return { calls: found.calls, rest: body.slice(found.end) };
}
