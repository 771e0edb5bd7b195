import { describe, expect, it } from "vitest";
import { graniteFormat } from "../../../../src/agent/model/tool-formats/granite.ts";
import { args, completeness, read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule, expectUnclosedListIncomplete } from "./marker-rules.ts";

describe("granite: <|tool_call|>[…] and <function_call> {…}", () => {
  it("reads Granite 3.0's token and list (vLLM tests/tool_parsers/test_granite_tool_parser.py, single)", () => {
    const m = read(graniteFormat, '<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]');
    expect(m?.calls).toEqual([{ name: "get_weather", arguments: { city: "Tokyo" }, complete: true }]);
    expect(m?.prose).toBe("");
  });

  it("reads parallel calls in the list (vLLM granite test, parallel_tool_calls_output)", () => {
    const text = `<|tool_call|> [
  {"name": "get_weather", "arguments": {"city": "Tokyo"}},
  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}
]`;
    expect(read(graniteFormat, text)?.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
  });

  it("keeps the text around the call as prose (vLLM granite test, surrounding_text_output)", () => {
    const text = `Let me check the weather for you.
<|tool_call|> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}]
I'll get that information.`;
    const m = read(graniteFormat, text);
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather"]);
    expect(m?.prose).toBe("Let me check the weather for you.\nI'll get that information.");
  });

  it("reads granite-20b-functioncalling's sequence (vLLM tests/tool_parsers/test_granite_20b_fc_tool_parser.py)", () => {
    const text =
      'Let me check the weather for you.\n<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\n' +
      '<function_call> {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}';
    const m = read(graniteFormat, text);
    expect(m?.calls.map((c) => [c.name, args(c.arguments)])).toEqual([
      ["get_weather", { city: "Tokyo" }],
      ["get_time", { timezone: "Asia/Tokyo" }],
    ]);
    expect(m?.prose).toBe("Let me check the weather for you.");
  });

  it("marks a list cut off mid-call incomplete (vLLM granite test, malformed_input_outputs[0])", () => {
    const m = read(graniteFormat, '<|tool_call|> [{"name": "func", "arguments": {');
    expect(m?.calls).toEqual([expect.objectContaining({ name: "func", complete: false })]);
  });

  it("claims nothing from plain text or a list that is no call list (vLLM granite malformed inputs)", () => {
    expect(read(graniteFormat, "This is a regular response without any tool calls.")).toBeUndefined();
    expect(read(graniteFormat, "<|tool_call|> [1, 2, 3]")).toBeUndefined();
    expect(read(graniteFormat, "<function_call> not json")).toBeUndefined();
  });

  it("marks a list that never closed incomplete, and a marker inside a string is text", () => {
    expectUnclosedListIncomplete(graniteFormat, "<|tool_call|>");
    expectMarkersInJsonRule(graniteFormat, "<function_call> ", "</function_call>");
    // Cut off by the next marker outside a string: that call is incomplete, the next one its own.
    const cut =
      '<function_call> {"name": "create_ticket", "arguments": {"title": <function_call> {"name": "get_weather", "arguments": {}}';
    expect(completeness(graniteFormat, cut)).toEqual([
      ["create_ticket", false],
      ["get_weather", true],
    ]);
  });

  it("returns quickly on hostile text", () => {
    expect(survives(graniteFormat, "<|tool_call|>".repeat(200_000))).toBeUndefined();
    expect(survives(graniteFormat, `<function_call>${"[{".repeat(500_000)}`)).toBeUndefined();
    const cut = survives(
      graniteFormat,
      `<|tool_call|>[{"name": "get_weather", "arguments": {"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });
});
