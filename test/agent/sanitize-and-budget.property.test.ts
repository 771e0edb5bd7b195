import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fitToBudget, lastUserIndex, SUMMARY_PREFIX } from "../../src/agent/context/context-budget.ts";
import type { ChatMessage, ToolMessage } from "../../src/agent/context/messages.ts";
import {
  INTERRUPTED_RESULT,
  isValidHistory,
  sanitizeHistory,
} from "../../src/agent/context/sanitize-history.ts";
import { historyTokens } from "../../src/agent/context/token-count.ts";

const id = fc.constantFrom("c1", "c2", "c3", "c4", "c5", "c6");
const text = fc.string({ maxLength: 200 });
const toolCall = fc.record({ id, name: fc.constantFrom("a", "b"), arguments: fc.constant("{}") });

/** Any mess: orphans, missing results, duplicates, results in the wrong place. */
const anyMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: text }),
  fc.record({ role: fc.constant("assistant" as const), content: text }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: text,
    toolCalls: fc.array(toolCall, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ role: fc.constant("tool" as const), toolCallId: id, name: fc.constant("a"), content: text }),
  fc.record({ role: fc.constant("system" as const), content: text }),
);

/** A well-formed unit: a user message, or a call message followed by its results. */
let unitSeq = 0;
const unit: fc.Arbitrary<ChatMessage[]> = fc.oneof(
  text.map((c) => [{ role: "user" as const, content: c }]),
  fc
    .tuple(text, fc.array(fc.string({ minLength: 0, maxLength: 3000 }), { minLength: 1, maxLength: 3 }))
    .map(([c, results]) => {
      const u = ++unitSeq;
      const calls = results.map((_, i) => ({ id: `u${u}_${i}`, name: "search", arguments: '{"q":"x"}' }));
      return [
        { role: "assistant" as const, content: c, toolCalls: calls },
        ...results.map(
          (r, i): ToolMessage => ({ role: "tool", toolCallId: calls[i]!.id, name: "search", content: r }),
        ),
      ];
    }),
  text.map((c) => [{ role: "assistant" as const, content: c }]),
);

/** Splits a valid history into its units: identity of a unit = the ids of its messages. */
function unitsOf(messages: ChatMessage[]): string[][] {
  const units: string[][] = [];
  for (const m of messages) {
    if (m.role === "tool") units.at(-1)!.push(m.toolCallId);
    else
      units.push([
        m.role === "assistant" && m.toolCalls ? m.toolCalls.map((c) => c.id).join(",") : `${m.role}`,
      ]);
  }
  return units;
}

describe("history sanitizer (property)", () => {
  it("always returns a valid sequence", () => {
    fc.assert(
      fc.property(fc.array(anyMessage, { maxLength: 30 }), (history) => {
        const out = sanitizeHistory(history);
        expect(isValidHistory(out)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("is idempotent and leaves valid histories untouched", () => {
    fc.assert(
      fc.property(fc.array(anyMessage, { maxLength: 30 }), (history) => {
        const once = sanitizeHistory(history);
        expect(sanitizeHistory(once)).toEqual(once);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 10 }), (units) => {
        const valid = units.flat();
        expect(sanitizeHistory(valid)).toEqual(valid);
      }),
      { numRuns: 300 },
    );
  });

  it("fills a missing result with an interrupted one and drops orphans", () => {
    const out = sanitizeHistory([
      { role: "tool", toolCallId: "orphan", name: "a", content: "x" },
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "a", arguments: "{}" },
          { id: "c2", name: "b", arguments: "{}" },
        ],
      },
      { role: "tool", toolCallId: "c2", name: "b", content: "two" },
      { role: "tool", toolCallId: "c2", name: "b", content: "dup" },
      { role: "tool", toolCallId: "zz", name: "b", content: "stray" },
    ]);
    expect(out).toEqual([
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "a", arguments: "{}" },
          { id: "c2", name: "b", arguments: "{}" },
        ],
      },
      { role: "tool", toolCallId: "c1", name: "a", content: INTERRUPTED_RESULT },
      { role: "tool", toolCallId: "c2", name: "b", content: "two" },
    ]);
  });
});

describe("context budget trimmer (property)", () => {
  it("keeps the history valid, never splits a unit, never trims the current turn, and gets under budget when it can", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(unit, { minLength: 1, maxLength: 12 }),
        fc.array(unit, { maxLength: 2 }),
        fc.integer({ min: 1500, max: 12000 }),
        fc.boolean(),
        async (older, currentTail, budget, summaryWorks) => {
          const current: ChatMessage[] = [
            { role: "user", content: "current question" },
            ...currentTail.flat().filter((m) => m.role !== "user"),
          ];
          const history = sanitizeHistory([...older.flat(), ...current]);
          const turn = history.slice(lastUserIndex(history));
          const r = await fitToBudget(history, {
            budgetTokens: budget,
            fixedTokens: 500,
            summarize: async () => {
              if (!summaryWorks) throw new Error("model down");
              return "short summary";
            },
          });
          expect(isValidHistory(r.messages.filter((m) => !(m.role === "system" && m.summary)))).toBe(true);
          // The current turn is intact, at the end.
          expect(r.messages.slice(r.messages.length - turn.length)).toEqual(turn);
          // Every unit that survived is whole: its call ids and results are as before.
          const before = unitsOf(history.filter((m) => m.role !== "system")).map((u) => u.join("|"));
          const after = unitsOf(r.messages.filter((m) => m.role !== "system")).map((u) => u.join("|"));
          for (const u of after) expect(before).toContain(u);
          // Under budget unless the current turn alone is too big.
          const turnTokens = historyTokens(turn);
          if (turnTokens + 500 + 200 < budget * 0.7) expect(r.tokens).toBeLessThanOrEqual(budget - 500);
          if (r.estimated) expect(r.tokens).toBeGreaterThanOrEqual(historyTokens(r.messages));
          else expect(r.tokens).toBe(historyTokens(r.messages));
          if (r.droppedUnits > 0 && summaryWorks)
            expect(r.messages.some((m) => m.role === "system" && m.content.startsWith(SUMMARY_PREFIX))).toBe(
              true,
            );
          if (r.droppedUnits > 0 && !summaryWorks) expect(r.summaryError).toBe("model down");
        },
      ),
      { numRuns: 150 },
    );
  });

  it("shrinks old tool results before dropping anything", async () => {
    const big = "x ".repeat(3000);
    const history: ChatMessage[] = [
      { role: "user", content: "first" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "search", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", name: "search", content: big, resultRef: "res_1" },
      { role: "assistant", content: "done" },
      { role: "user", content: "second" },
    ];
    const r = await fitToBudget(history, {
      budgetTokens: 2000,
      fixedTokens: 500,
      summarize: async () => "s",
    });
    expect(r.shrunkResults).toBe(1);
    expect(r.droppedUnits).toBe(0);
    const tool = r.messages[2] as ToolMessage;
    expect(tool.shrunk).toBe(true);
    expect(tool.content).toContain('fetch_result ref="res_1"');
    expect(history[2]).not.toHaveProperty("shrunk"); // input untouched
  });
});
