import { describe, expect, it } from "vitest";
import { phi4MiniFormat } from "../../../../src/agent/model/tool-formats/phi4-mini.ts";
import { args, read, survives } from "./json-family-helpers.ts";
import { expectUnclosedListIncomplete } from "./marker-rules.ts";

describe("phi4_mini: functools[…]", () => {
  it("reads one call (vLLM tests/tool_parsers/test_phi4mini_tool_parser.py, single_tool_call_output)", () => {
    const m = read(phi4MiniFormat, 'functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]');
    expect(m?.calls).toEqual([{ name: "get_weather", arguments: { city: "Tokyo" }, complete: true }]);
    expect(m?.prose).toBe("");
  });

  it("reads parallel calls and nested arguments (vLLM phi4mini test, parallel / various_data_types)", () => {
    const text = `functools[
  {"name": "get_weather", "arguments": {"city": "Tokyo"}},
  {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo", "object_field": {"nested": "value"}}}
]`;
    const m = read(phi4MiniFormat, text);
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    expect(args(m!.calls[1]!.arguments)).toEqual({
      timezone: "Asia/Tokyo",
      object_field: { nested: "value" },
    });
  });

  it("keeps the surrounding prose (vLLM phi4mini test, surrounding_text_output)", () => {
    const text = `Let me check the weather for you.
functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]
Would you like to know more?`;
    expect(read(phi4MiniFormat, text)?.prose).toBe(
      "Let me check the weather for you.\nWould you like to know more?",
    );
  });

  it("reads FireFunction v2's ` functools[` (llama.cpp chat-parser.cpp, firefunction_v2)", () => {
    const m = read(phi4MiniFormat, ' functools[{"name":"get_weather","arguments":{"location":"Seoul"}}]');
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather"]);
  });

  it("marks a list cut off mid-call incomplete (vLLM phi4mini test, malformed_input_outputs[0])", () => {
    const m = read(phi4MiniFormat, 'functools[{"name": "func", "arguments": {');
    expect(m?.calls).toEqual([expect.objectContaining({ name: "func", complete: false })]);
  });

  it("leaves prose about the Python module alone (vLLM phi4mini malformed inputs)", () => {
    expect(read(phi4MiniFormat, "Use functools.lru_cache to memoize it.")).toBeUndefined();
    expect(read(phi4MiniFormat, "functools[] This is just text")).toBeUndefined();
    expect(read(phi4MiniFormat, "functools[ This is just text ]")).toBeUndefined();
    expect(read(phi4MiniFormat, 'functools{"name": "func"}')).toBeUndefined();
  });

  it("marks every call of a list that never closed incomplete", () => {
    expectUnclosedListIncomplete(phi4MiniFormat, "functools");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(phi4MiniFormat, "functools[{".repeat(200_000))).toBeUndefined();
    survives(phi4MiniFormat, `functools[${"[".repeat(1_000_000)}`);
  });
});
