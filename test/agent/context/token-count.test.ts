import { describe, expect, it } from "vitest";
import { fitToBudget } from "../../../src/agent/context/context-budget.ts";
import type { ChatMessage } from "../../../src/agent/context/messages.ts";
import { countTokens, historyTokens, messageTokens } from "../../../src/agent/context/token-count.ts";

const long = (i: number) =>
  `Ticket ${i}: the VPN gateway in Berlin drops sessions after ten minutes. `.repeat(40);

describe("token counts", () => {
  it("a history loaded again (new message objects, same text) counts the same as the first time", () => {
    const history = (): ChatMessage[] => [
      { role: "user", content: long(1) },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "search_tickets", arguments: JSON.stringify({ query: long(2) }) }],
      },
      { role: "tool", toolCallId: "c1", name: "search_tickets", content: long(3) },
      { role: "assistant", content: long(4) },
    ];
    const first = historyTokens(history());
    expect(historyTokens(history())).toBe(first);
    expect(messageTokens({ role: "user", content: long(1) })).toBe(4 + countTokens(long(1)));
  });

  it("stays exact after its content cache has turned over", () => {
    const first = messageTokens({ role: "user", content: long(0) });
    for (let i = 10; i < 2000; i++) messageTokens({ role: "user", content: long(i) }); // > 4M characters
    expect(messageTokens({ role: "user", content: long(0) })).toBe(first);
    expect(first).toBe(4 + countTokens(long(0)));
  });
});

describe("fitToBudget without counting", () => {
  const history: ChatMessage[] = [
    { role: "user", content: "Open a ticket: VPN down." },
    { role: "assistant", content: "Opened #42." },
  ];

  it("does not count anything when the byte bounds fit the budget", async () => {
    const r = await fitToBudget(history, {
      budgetTokens: 2000,
      fixedTokensUpperBound: 1500,
      fixedTokens: () => {
        throw new Error("counted");
      },
    });
    expect(r).toMatchObject({ messages: history, estimated: true, overBudget: false, droppedUnits: 0 });
  });

  it("counts the fixed part when the bounds do not fit, and trims as before", async () => {
    let asked = 0;
    const fixedTokens = () => {
      asked++;
      return 100;
    };
    const r = await fitToBudget(history, { budgetTokens: 2000, fixedTokensUpperBound: 1990, fixedTokens });
    expect(asked).toBe(1);
    expect(r.messages).toBe(history);
    expect(r.overBudget).toBe(false);
  });
});
