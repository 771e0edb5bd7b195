import { describe, expect, it } from "vitest";
import type { ToolSpec } from "../../../../src/agent/model/chat-model.ts";
import { normalizeAssistantMessage } from "../../../../src/agent/model/normalize-response.ts";
import { toolFormatContext } from "../../../../src/agent/model/tool-formats/context.ts";

const spec = (name: string, properties: Record<string, unknown>): ToolSpec => ({
  name,
  description: name,
  parameters: { type: "object", properties, additionalProperties: false },
});
const ctx = toolFormatContext([
  spec("search_tickets", { query: { type: "string" } }),
  spec("create_ticket", { title: { type: "string" } }),
]);
const native = (id: string, name: string, args: string) => ({
  id,
  type: "function",
  function: { name, arguments: args },
});
const ran = (n: ReturnType<typeof normalizeAssistantMessage>) =>
  n.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)] as const);

describe("split and mixed replies", () => {
  it("native calls beside more calls in the text (a server that parsed only the first): all run, in order", () => {
    const n = normalizeAssistantMessage(
      {
        content: '<tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</tool_call>',
        tool_calls: [native("call_1", "search_tickets", '{"query":"vpn"}')],
      },
      "tool_calls",
      ctx,
    );
    expect(ran(n)).toEqual([
      ["search_tickets", { query: "vpn" }],
      ["create_ticket", { title: "VPN" }],
    ]);
    expect(n.toolCalls[0]!.id).toBe("call_1");
    expect(new Set(n.toolCalls.map((c) => c.id)).size).toBe(2);
    expect(n.content).toBe("");
  });

  it("a text call that repeats a native one runs once", () => {
    const n = normalizeAssistantMessage(
      {
        content:
          '<tool_call>{"name": "search_tickets", "arguments": {"query": "vpn"}}</tool_call>\n<tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</tool_call>',
        tool_calls: [native("call_1", "functions.search_tickets", '{ "query": "vpn" }')],
      },
      "stop",
      ctx,
    );
    expect(ran(n)).toEqual([
      ["functions.search_tickets", { query: "vpn" }],
      ["create_ticket", { title: "VPN" }],
    ]);
    expect(n.finishReason).toBe("tool_calls");
  });

  it("a native call beside a quoted or cut-off text call runs alone", () => {
    for (const content of [
      '> <tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</tool_call>',
      '<tool_call>{"name": "create_ticket", "arguments": {"title": "VP',
      "I will search first.",
    ]) {
      const n = normalizeAssistantMessage(
        { content, tool_calls: [native("call_1", "search_tickets", '{"query":"vpn"}')] },
        "tool_calls",
        ctx,
      );
      expect(ran(n), content).toEqual([["search_tickets", { query: "vpn" }]]);
    }
  });

  it("call blocks in different formats in one message: each read by its own reader, in the order written", () => {
    const n = normalizeAssistantMessage(
      {
        content:
          'First.\n[TOOL_CALLS]search_tickets[ARGS]{"query": "vpn"}\n<|START_ACTION|>[{"tool_name": "create_ticket", "parameters": {"title": "A"}}]<|END_ACTION|>\n<tool_call>{"name": "create_ticket", "arguments": {"title": "B"}}</tool_call>',
      },
      "stop",
      ctx,
    );
    expect(ran(n)).toEqual([
      ["search_tickets", { query: "vpn" }],
      ["create_ticket", { title: "A" }],
      ["create_ticket", { title: "B" }],
    ]);
    expect(n.content).toBe("First.");
    expect(n.textFormat?.split("+").sort()).toEqual(["hermes_json", "mistral", "schema_guided"]);
  });
});

describe("quoting inside a call's own arguments does not hide the call", () => {
  it("a value with a line that starts with > (Gemma 4 and XML values keep line breaks)", () => {
    const gemma = normalizeAssistantMessage(
      {
        content:
          '<|tool_call>call:create_ticket{title:<|"|>VPN\n> drops<|"|>}<tool_call|><|tool_call>call:search_tickets{query:<|"|>vpn<|"|>}<tool_call|>',
      },
      "stop",
      ctx,
    );
    expect(ran(gemma)).toEqual([
      ["create_ticket", { title: "VPN\n> drops" }],
      ["search_tickets", { query: "vpn" }],
    ]);
  });

  it("a value that quotes a call as an example", () => {
    const n = normalizeAssistantMessage(
      {
        content:
          '<tool_call>{"name": "create_ticket", "arguments": {"title": "Models write calls, e.g. <tool_call>{\\"name\\": \\"search_tickets\\"}</tool_call>, as text"}}</tool_call>',
      },
      "stop",
      ctx,
    );
    expect(ran(n)).toEqual([
      [
        "create_ticket",
        { title: 'Models write calls, e.g. <tool_call>{"name": "search_tickets"}</tool_call>, as text' },
      ],
    ]);
  });
});
