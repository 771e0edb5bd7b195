import { scanCallValues } from "./json-call-scan.ts";
import { skipSpace } from "./marker-scan.ts";
import { type RepairBudget, repairBudget } from "./repair-budget.ts";
import { parseTaggedSections, type SectionCalls } from "./tagged-sections.ts";
import type { ToolFormat } from "./types.ts";

const TAGS = { open: "<|action_start|>", close: "<|action_end|>" };
const PLUGIN = "<|plugin|>";

/**
 * InternLM2 / 2.5: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`, one
 * call per action (several actions in a row are read in turn). An action for another executor
 * (`<|action_start|><|interpreter|>` is code to run) is no call and stays in the prose. An action
 * never ended is complete when its JSON closes.
 */
export const internlm2Format: ToolFormat = {
  id: "internlm2",
  family: "InternLM2 / InternLM2.5: <|action_start|><|plugin|>{json}<|action_end|>",
  detect: (text) => text.includes(TAGS.open),
  parse: (text) => {
    const budget = repairBudget();
    return parseTaggedSections(text, TAGS, (body) => readAction(body, budget));
  },
};

function readAction(body: string, budget: RepairBudget): SectionCalls | undefined {
  const plugin = skipSpace(body, 0);
  if (!body.startsWith(PLUGIN, plugin)) return undefined;
  const found = scanCallValues(body, skipSpace(body, plugin + PLUGIN.length), budget);
  return { calls: found.calls, rest: body.slice(found.end) };
}
