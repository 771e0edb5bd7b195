import { scanCallValues } from "./json-call-scan.ts";
import { skipSpace } from "./marker-scan.ts";
import { type RepairBudget, repairBudget } from "./repair-budget.ts";
import { parseTaggedSections, type SectionCalls } from "./tagged-sections.ts";
import type { ToolFormat } from "./types.ts";

const TAGS = { open: "<tool_call>", close: "</tool_call>" };

/**
 * Hermes 2 Pro / Hermes 3, Qwen 2.5 / Qwen 3, Xiaomi MiMo and Granite 3.1+: `<tool_call>{"name": …,
 * "arguments": {…}}</tool_call>`, one or several, the last possibly left open (the model stopped
 * before the closing tag: complete when its JSON closes). A body may hold a list of calls (Granite
 * writes `<tool_call>[{…}, {…}]`), several objects in a row, or a fenced object. A body in XML —
 * Qwen3-Coder's `<function=…>` or GLM's `name<arg_key>…` — belongs to another format, so the whole
 * text is left to it.
 */
export const hermesJsonFormat: ToolFormat = {
  id: "hermes_json",
  family: "Hermes 2 Pro / 3, Qwen 2.5 / 3, Granite 3.1+, MiMo: <tool_call>{json}</tool_call>",
  detect: (text) => text.includes(TAGS.open),
  parse: (text) => {
    const budget = repairBudget();
    return parseTaggedSections(text, TAGS, (body) => readBody(body, budget));
  },
};

function readBody(body: string, budget: RepairBudget): SectionCalls | "foreign" {
  const start = skipSpace(body, 0);
  if (isXmlBody(body, start)) return "foreign";
  const found = scanCallValues(body, start, budget);
  return { calls: found.calls, rest: stripFenceCloser(body.slice(found.end)) };
}

/** Qwen3-Coder (`<function=name>`) and GLM-4.5 (`name<arg_key>…`) write XML inside the same tag. */
function isXmlBody(body: string, start: number): boolean {
  if (body.startsWith("<function", start)) return true;
  const first = body[start];
  return first !== "{" && first !== "[" && first !== "`" && body.includes("<arg_key>");
}

/** The text left in a tag after its JSON, without the fence that wrapped the JSON. */
function stripFenceCloser(rest: string): string {
  const t = rest.trim();
  return t.startsWith("```") ? t.slice(3) : t;
}
