/**
 * What each text tool-call reader costs on its own: every reader of `src/agent/model/tool-formats`
 * (the 21 families in order, then the schema-guided reader) given, through its `detect` and `parse`,
 * (1) a 2 KB reply with no call, (2) every message of the model-format corpus, (3) hostile texts
 * (100 KB of `<`, deep brackets, thousands of tags and call keywords). Prints one line per reader:
 * µs per no-call reply, µs per corpus message, and its worst hostile input in ms; then the whole
 * recovery (all readers in order) on the same inputs. Run with `node bench/text-format-readers.ts`.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { ToolSpec } from "../src/agent/model/chat-model.ts";
import { toolFormatContext } from "../src/agent/model/tool-formats/context.ts";
import { FALLBACK_FORMAT, ORDERED_FORMATS, recoverToolCalls } from "../src/agent/model/tool-formats/index.ts";
import type { ToolFormat, ToolFormatContext } from "../src/agent/model/tool-formats/types.ts";

const DIR = new URL("../test/fixtures/model-formats/", import.meta.url);

const specs: ToolSpec[] = ["create_ticket", "search_tickets", "get_current_time", "schedule_check"].map(
  (name) => ({ name, description: name, parameters: { type: "object", properties: {} } }),
);

/** A reply with no call: prose with the punctuation replies carry (`:`, `<`, brackets, a fence). */
const NO_CALL = `${"The VPN drops every ten minutes on floor 3: users see a timeout (error 809) and reconnect. ".repeat(18)}
Check that the MTU is < 1400 and [the client] is current.`;

function hostileInputs(): Array<{ name: string; text: string }> {
  return [
    { name: "100 KB of <", text: "<".repeat(100_000) },
    { name: "prose with 20k <", text: "a < b ".repeat(20_000) },
    { name: "20k call-like tags", text: "<a_tool_call>".repeat(20_000) },
    { name: "20k <tool_call>", text: "<tool_call>".repeat(20_000) },
    { name: "50k nested {", text: `<x_tool_call>${"{".repeat(50_000)}` },
    { name: "50k nested [", text: `[TOOL_CALLS]${"[".repeat(50_000)}` },
    { name: "10k Action lines", text: "Action: create_ticket\n".repeat(10_000) },
    { name: "5k keyword calls", text: `<function_calls>\n${'create_ticket(title="x")\n'.repeat(5_000)}` },
    { name: "20k parameter tags", text: `<create_ticket>\n${"<title>".repeat(20_000)}` },
    { name: "10k think tags", text: "<a:think>".repeat(10_000) },
  ];
}

function corpusContents(): string[] {
  const out: string[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".jsonl"))) {
    for (const line of readFileSync(new URL(file, DIR), "utf8").split("\n")) {
      if (!line.trim()) continue;
      const content = JSON.parse(line).completion.choices[0].message.content;
      if (typeof content === "string" && content.trim()) out.push(content);
    }
  }
  return out;
}

/**
 * µs per call of `fn`: the least mean over many short chunks (after a warm-up), so chunks that a
 * busy machine, a GC pause or another process slowed do not count as the reader's cost.
 */
function microsPer(fn: () => void, chunks = 60, perChunk = 50): number {
  for (let i = 0; i < 200; i++) fn();
  let least = Number.POSITIVE_INFINITY;
  for (let c = 0; c < chunks; c++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < perChunk; i++) fn();
    least = Math.min(least, Number(process.hrtime.bigint() - started) / 1000 / perChunk);
  }
  return least;
}

/** Least ms of five runs after one warm-up (a host stall in one run is not the reader's). */
function leastMs(fn: () => void): number {
  fn();
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    const started = process.hrtime.bigint();
    fn();
    least = Math.min(least, Number(process.hrtime.bigint() - started) / 1e6);
  }
  return least;
}

export interface ReaderCost {
  reader: string;
  noCallUs: number;
  corpusUs: number;
  worstHostileMs: number;
  worstHostile: string;
}

export function benchReaders(): ReaderCost[] {
  const ctx: ToolFormatContext = toolFormatContext(specs);
  const corpus = corpusContents();
  const hostile = hostileInputs();
  const readers: Array<{ id: string; run: (text: string) => unknown }> = [
    ...[...ORDERED_FORMATS.map((f) => f.format), FALLBACK_FORMAT.format].map((f: ToolFormat) => ({
      id: f.id,
      run: (text: string) => (f.detect(text) ? f.parse(text, ctx) : undefined),
    })),
    { id: "all readers (recoverToolCalls)", run: (text: string) => recoverToolCalls(text, ctx) },
  ];
  return readers.map(({ id, run }) => {
    let worst = { ms: 0, name: "" };
    for (const h of hostile) {
      const ms = leastMs(() => run(h.text));
      if (ms > worst.ms) worst = { ms, name: h.name };
    }
    return {
      reader: id,
      noCallUs: microsPer(() => run(NO_CALL)),
      corpusUs:
        microsPer(() => {
          for (const c of corpus) run(c);
        }) / corpus.length,
      worstHostileMs: worst.ms,
      worstHostile: worst.name,
    };
  });
}

export function printReaders(rows = benchReaders()): void {
  console.log("text tool-call readers, each alone (detect + parse; corpus test/fixtures/model-formats):");
  for (const r of rows) {
    console.log(
      `  ${r.reader.padEnd(32)} no call ${r.noCallUs.toFixed(2).padStart(7)} µs  corpus ${r.corpusUs
        .toFixed(2)
        .padStart(
          7,
        )} µs/message  worst hostile ${r.worstHostileMs.toFixed(2).padStart(6)} ms (${r.worstHostile})`,
    );
  }
  const worst = [...rows].sort((a, b) => b.worstHostileMs - a.worstHostileMs)[0];
  if (worst)
    console.log(
      `worst hostile input: ${worst.reader} ${worst.worstHostileMs.toFixed(2)} ms (${worst.worstHostile})`,
    );
}

if (import.meta.url === `file://${process.argv[1]}`) printReaders();
