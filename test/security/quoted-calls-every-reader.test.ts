import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../src/agent/model/chat-model.ts";
import { normalizeAssistantMessage } from "../../src/agent/model/normalize-response.ts";
import { toolFormatContext } from "../../src/agent/model/tool-formats/context.ts";

/**
 * A call that is quoted is text, for every reader: each call written in the model-format corpus
 * (test/fixtures/model-formats), quoted back the way an injected tool result or an explanation
 * quotes it — a blockquote, a code fence, inline code, an example or a warning — runs nothing.
 */
interface CorpusCase {
  case: string;
  family: string;
  completion: { choices: Array<{ message: Record<string, unknown> }> };
  expect: { calls: unknown[] };
}

const dir = new URL("../fixtures/model-formats/", import.meta.url);
const corpus: CorpusCase[] = readdirSync(dir)
  .filter((f) => f.endsWith(".jsonl"))
  .flatMap((f) =>
    readFileSync(new URL(f, dir), "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as CorpusCase),
  );

const specs: ToolSpec[] = ["create_ticket", "search_tickets", "get_current_time", "schedule_check"].map(
  (name) => ({
    name,
    description: name,
    parameters: { type: "object", properties: {} },
  }),
);
const ctx = toolFormatContext(specs);
const normalize = (content: string) => normalizeAssistantMessage({ content }, "stop", ctx);

/** Calls written in the answer text itself (not only in a reasoning field), as each reader reads them. */
const written = corpus
  .filter((c) => c.expect.calls.length > 0)
  .map((c) => ({ id: `${c.family}/${c.case}`, content: c.completion.choices[0]!.message.content }))
  .filter(
    (c): c is { id: string; content: string } => typeof c.content === "string" && c.content.trim() !== "",
  )
  .filter((c) => normalize(c.content).toolCalls.length > 0)
  .map((c) => {
    const n = normalize(c.content);
    // Gemma 4's thought channel (`<|channel>thought…<channel|>`) is reasoning written before the call.
    return { ...c, wholeCall: n.content === "" && n.reasoning === "" && !c.content.includes("<|channel>") };
  });

const blockquote = (text: string) =>
  `The tool result said:\n\n${text
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n")}\n\nThat came from the page, so I did nothing.`;

/** Examples and warnings introduce a call that starts right after them (not the model's own prose). */
const QUOTES: Array<{ how: string; quote: (text: string, wholeCall: boolean) => string | undefined }> = [
  { how: "blockquote", quote: blockquote },
  {
    how: "code fence",
    quote: (t) =>
      t.includes("```") ? undefined : `Here is what it wrote:\n\n\`\`\`\n${t}\n\`\`\`\n\nNothing ran.`,
  },
  {
    how: "inline code",
    quote: (t) => (t.includes("\n") || t.includes("`") ? undefined : `It wrote \`${t}\` and stopped.`),
  },
  { how: "for example", quote: (t, whole) => (whole ? `The syntax, for example:\n${t}` : undefined) },
  {
    how: "do not run",
    quote: (t, whole) => (whole ? `The ticket body says this; do not run it:\n\n${t}` : undefined),
  },
  { how: "e.g.", quote: (t) => (t.includes("\n") ? undefined : `Models write calls differently, e.g. ${t}`) },
];

describe("a quoted call is text, for every reader", () => {
  it("the corpus holds calls of every family to quote", () => {
    expect(written.length).toBeGreaterThanOrEqual(80);
    expect(written.filter((w) => w.wholeCall).length).toBeGreaterThanOrEqual(50);
    expect(new Set(written.map((w) => w.id.split("/")[0])).size).toBeGreaterThanOrEqual(20);
  });

  for (const { how, quote } of QUOTES) {
    it(`${how}: nothing runs`, () => {
      const ran: string[] = [];
      for (const w of written) {
        const text = quote(w.content, w.wholeCall);
        if (text === undefined) continue;
        const n = normalize(text);
        if (n.toolCalls.length > 0) ran.push(`${w.id}: ${n.toolCalls.map((c) => c.name).join(", ")}`);
      }
      expect(ran).toEqual([]);
    });
  }

  it("the same calls unquoted still run (the quoting, not the call, is what stops them)", () => {
    for (const w of written) expect(normalize(w.content).toolCalls.length, w.id).toBeGreaterThan(0);
  });
});
