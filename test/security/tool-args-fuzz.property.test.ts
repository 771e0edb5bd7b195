import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { silentLogger } from "../../src/core/logger.ts";
import { defineTool, type Tool } from "../../src/tools/define-tool.ts";
import { ToolRegistry } from "../../src/tools/registry.ts";
import { createMemoryResultStore } from "../../src/tools/result-store.ts";
import { startTestHermes, type TestHermes } from "../helpers/hermes-harness.ts";
import { cpuMs } from "./adversarial-strings.ts";

/** Our own work may hold the event loop for at most this long per call. */
const STALL_MS = 100;

/**
 * Property-based fuzzing of every built-in tool's arguments through the runtime's repair → coerce →
 * validate path: whatever a model writes, preparing a call never throws, never stalls, and a call that
 * gets through to execution always matches the tool's schema.
 */
describe("fuzzing the built-in tools' arguments", () => {
  let t: TestHermes;
  let builtIns: Tool[];
  beforeAll(async () => {
    t = await startTestHermes();
    builtIns = t.hermes.services.runtime.registry.list();
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  });

  /** Renders a value the ways models write JSON: strict, fenced, single-quoted, Python, trailing commas. */
  const rendered = (value: unknown) =>
    fc
      .constantFrom<(v: unknown) => string>(
        (v) => JSON.stringify(v),
        (v) => `\`\`\`json\n${JSON.stringify(v, null, 2)}\n\`\`\``,
        (v) => JSON.stringify(v).replace(/"/g, "'"),
        (v) =>
          JSON.stringify(v)
            .replace(/\btrue\b/g, "True")
            .replace(/\bfalse\b/g, "False")
            .replace(/\bnull\b/g, "None"),
        (v) => JSON.stringify(v).replace(/}$/, ",}"),
        (v) => JSON.stringify(JSON.stringify(v)),
        (v) => `// the call\n${JSON.stringify(v)}`,
      )
      .map((render) => render(value));

  /** Values shaped like the tool's arguments: its own keys with scalars of every kind, plus strays. */
  const argsFor = (tool: Tool) => {
    const schema = z.toJSONSchema(tool.input, { io: "input", unrepresentable: "any" }) as {
      properties?: Record<string, unknown>;
    };
    const keys = Object.keys(schema.properties ?? {});
    const scalar = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: false }),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom("5", "TRUE", "false", "High", "urgent", "open", "C0OPS", "U0USER1", '["a"]', "", " "),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.jsonValue({ maxDepth: 3 }),
    );
    return fc.dictionary(
      keys.length
        ? fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 }))
        : fc.string({ maxLength: 8 }),
      scalar,
      { maxKeys: keys.length + 2 },
    );
  };

  it("no input crashes or stalls the repair, and what executes always matches the schema", async () => {
    for (const tool of builtIns) {
      const executed: unknown[] = [];
      // The same tool (schema, limits) with an execute that records instead of acting.
      const recorder = defineTool({
        ...tool,
        input: tool.input,
        execute: (args) => {
          executed.push(args);
          return "ok";
        },
      });
      const registry = new ToolRegistry({
        results: createMemoryResultStore(),
        logger: silentLogger(),
      }).register(recorder);
      const text = fc.oneof(
        argsFor(tool).chain(rendered),
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
        fc.string({
          unit: fc.constantFrom("{", "[", '"', "'", ",", ":", " ", "\n", "`", "\\", "/", "*", "a", "1"),
        }),
      );
      await fc.assert(
        fc.asyncProperty(text, async (args) => {
          let prepared: ReturnType<typeof registry.prepare> | undefined;
          const ms = cpuMs(() => {
            prepared = registry.prepare({ id: "c1", name: tool.name, arguments: args });
          });
          expect(ms).toBeLessThan(STALL_MS);
          if (!prepared!.ok) {
            expect(prepared!.error).toContain(tool.name);
            expect(prepared!.error).not.toMatch(/\n\s+at /);
            return;
          }
          const before = executed.length;
          await registry.execute(prepared!.tool, prepared!.args, {
            run: { runId: "r", sessionKey: "T:C:1.1", userId: "U0USER1" },
            callId: "c1",
            signal: new AbortController().signal,
            logger: silentLogger(),
          });
          expect(executed.length).toBe(before + 1);
          expect(tool.input.safeParse(executed.at(-1)).success).toBe(true);
        }),
        { numRuns: 150 },
      );
    }
    expect(builtIns.map((b) => b.name)).toEqual(
      expect.arrayContaining(["create_ticket", "send_message", "delete_ticket", "remember", "ticket_report"]),
    );
  }, 180_000);
});
