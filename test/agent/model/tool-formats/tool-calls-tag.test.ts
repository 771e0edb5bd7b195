import { describe, expect, it } from "vitest";
import { toolCallsTagFormat } from "../../../../src/agent/model/tool-formats/tool-calls-tag.ts";
import { args, read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule, expectUnclosedListIncomplete } from "./marker-rules.ts";

describe("tool_calls_tag: <tool_calls>…</tool_calls>", () => {
  it("reads Jamba's list with prose before it (vLLM tests/tool_parsers/test_jamba_tool_parser.py)", () => {
    const text =
      ' Sure! let me call the tool for you.<tool_calls>[\n    {"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}},\n' +
      '    {"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}\n]</tool_calls>';
    const m = read(toolCallsTagFormat, text);
    expect(m?.calls.map((c) => (args(c.arguments) as { city: string }).city)).toEqual(["Dallas", "Orlando"]);
    expect(m?.calls.every((c) => c.complete)).toBe(true);
    expect(m?.prose).toBe("Sure! let me call the tool for you.");
  });

  it("reads MiniMax-M1's one object per line (vLLM tests/tool_parsers/test_minimax_tool_parser.py)", () => {
    const text = `I'll help you check the weather. <tool_calls>
{"name": "get_current_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}
{"name": "get_current_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}
</tool_calls>`;
    const m = read(toolCallsTagFormat, text);
    expect(m?.calls).toHaveLength(2);
    expect(m?.prose).toBe("I'll help you check the weather.");
  });

  it("skips a broken line and keeps going (vLLM minimax test, invalid_json)", () => {
    const text = `<tool_calls>
{"name": "valid_tool", "arguments": {"city": "Seattle"}}
{invalid json here}
{"name": "another_valid_tool", "arguments": {"param": "value"}}
</tool_calls>`;
    expect(read(toolCallsTagFormat, text)?.calls.map((c) => c.name)).toEqual([
      "valid_tool",
      "another_valid_tool",
    ]);
  });

  it("reads an unclosed section as far as its JSON closes (vLLM minimax test, tool_call_incomplete_tag)", () => {
    const closedJson = read(
      toolCallsTagFormat,
      '<tool_calls>\n{"name": "get_current_weather", "arguments": {"city": "Boston", "state": "MA"}}',
    );
    expect(closedJson?.calls).toEqual([
      { name: "get_current_weather", arguments: { city: "Boston", state: "MA" }, complete: true },
    ]);
    const cut = read(toolCallsTagFormat, '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Bos');
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });

  it("claims nothing from prose (vLLM jamba test, no_tools)", () => {
    expect(read(toolCallsTagFormat, "This is a test")).toBeUndefined();
    expect(read(toolCallsTagFormat, "Wrap calls in <tool_calls> and </tool_calls>.")).toBeUndefined();
  });

  it("reads </tool_calls> inside a string as text; a list cut off or broken by the close tag is incomplete", () => {
    expectMarkersInJsonRule(toolCallsTagFormat, "<tool_calls>", "</tool_calls>");
    expectUnclosedListIncomplete(toolCallsTagFormat, "<tool_calls>");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(toolCallsTagFormat, "<tool_calls>".repeat(200_000))).toBeUndefined();
    survives(toolCallsTagFormat, `<tool_calls>${"{".repeat(1_000_000)}`);
    survives(toolCallsTagFormat, `<tool_calls>{"name": "x", "arguments": {${'"'.repeat(8000)}`.repeat(64));
  });
});
