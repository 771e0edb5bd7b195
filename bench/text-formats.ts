/**
 * What recovering text tool calls costs: every message of the model-format corpus
 * (test/fixtures/model-formats/*.jsonl) through the adapter's normalization (reasoning split, every
 * format's detect/parse in order, name context), timed per family. Prints µs per message and the
 * worst family. Run alone with `node bench/text-formats.ts`, or as part of `npm run bench:runtime`.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { ToolSpec } from "../src/agent/model/chat-model.ts";
import { normalizeAssistantMessage } from "../src/agent/model/normalize-response.ts";
import { toolFormatContext } from "../src/agent/model/tool-formats/context.ts";

const DIR = new URL("../test/fixtures/model-formats/", import.meta.url);
const ROUNDS = 2000;

const specs: ToolSpec[] = ["create_ticket", "search_tickets", "get_current_time", "schedule_check"].map(
  (name) => ({ name, description: name, parameters: { type: "object", properties: {} } }),
);

interface Case {
  family: string;
  completion: { choices: Array<{ message: Record<string, unknown>; finish_reason: unknown }> };
}

export function benchTextFormats(): { family: string; usPerMessage: number }[] {
  const ctx = toolFormatContext(specs);
  const byFamily = new Map<string, Case[]>();
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".jsonl"))) {
    for (const line of readFileSync(new URL(file, DIR), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const c = JSON.parse(line) as Case;
      byFamily.set(c.family, [...(byFamily.get(c.family) ?? []), c]);
    }
  }
  const out: { family: string; usPerMessage: number }[] = [];
  for (const [family, cases] of byFamily) {
    const run = () => {
      for (const c of cases) {
        const choice = c.completion.choices[0]!;
        normalizeAssistantMessage(choice.message, choice.finish_reason, ctx);
      }
    };
    for (let i = 0; i < 200; i++) run(); // warm-up
    const started = process.hrtime.bigint();
    for (let i = 0; i < ROUNDS; i++) run();
    const ns = Number(process.hrtime.bigint() - started);
    out.push({ family, usPerMessage: ns / 1000 / (ROUNDS * cases.length) });
  }
  return out.sort((a, b) => b.usPerMessage - a.usPerMessage);
}

export function printTextFormats(rows = benchTextFormats()): void {
  console.log(
    "text tool-call recovery (normalize one assistant message, corpus test/fixtures/model-formats):",
  );
  for (const r of rows) console.log(`  ${r.family.padEnd(22)} ${r.usPerMessage.toFixed(1)} µs/message`);
  const worst = rows[0];
  if (worst) console.log(`worst family: ${worst.family} ${worst.usPerMessage.toFixed(1)} µs/message`);
}

if (import.meta.url === `file://${process.argv[1]}`) printTextFormats();
