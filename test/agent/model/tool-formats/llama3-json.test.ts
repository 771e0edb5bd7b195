import { describe, expect, it } from "vitest";
import { llama3JsonFormat } from "../../../../src/agent/model/tool-formats/llama3-json.ts";
import { args, read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule, expectUnclosedListIncomplete } from "./marker-rules.ts";

describe("llama3_json: <|python_tag|>{…} and the bare {name, parameters}", () => {
  it("reads a bare call with parameters (vLLM tests/tool_parsers/test_llama3_json_tool_parser.py, with_arguments)", () => {
    const m = read(
      llama3JsonFormat,
      '{"name": "search_tickets", "parameters": {"query": "test query", "limit": 10}}',
    );
    expect(m?.calls).toEqual([
      { name: "search_tickets", arguments: { query: "test query", limit: 10 }, complete: true },
    ]);
    expect(m?.prose).toBe("");
  });

  it("reads calls separated by semicolons (vLLM llama3 test, multiple_json_with_whitespace)", () => {
    const text =
      '{"name": "search_tickets", "parameters": {"query": "test1"}} ; ' +
      '{"name": "get_current_time", "parameters": {}} ; ' +
      '{"name": "search_tickets", "parameters": {"query": "test2"}}';
    expect(read(llama3JsonFormat, text)?.calls.map((c) => c.name)).toEqual([
      "search_tickets",
      "get_current_time",
      "search_tickets",
    ]);
  });

  it('reads {"type": "function", …} (llama.cpp chat-parser.cpp common_chat_parse_llama_3_1 function_regex)', () => {
    const m = read(
      llama3JsonFormat,
      '{"type": "function", "name": "get_weather", "parameters": {"city": "Paris"}}',
    );
    expect(m?.calls.map((c) => [c.name, args(c.arguments)])).toEqual([["get_weather", { city: "Paris" }]]);
  });

  it("reads any name after <|python_tag|>, with the prose before it", () => {
    const m = read(
      llama3JsonFormat,
      'Checking.<|python_tag|>{"name": "lookup_order", "parameters": {"id": 7}}',
    );
    expect(m?.calls).toEqual([{ name: "lookup_order", arguments: { id: 7 }, complete: true }]);
    expect(m?.prose).toBe("Checking.");
  });

  it("reads Llama 3.1's built-in call form (llama.cpp common_chat_parse_llama_3_1 with builtin tools)", () => {
    const m = read(llama3JsonFormat, '<|python_tag|>brave_search.call(query="weather in Paris", count=3)');
    expect(m?.calls).toEqual([
      { name: "brave_search", arguments: { query: "weather in Paris", count: 3 }, complete: true },
    ]);
    const spaced = read(
      llama3JsonFormat,
      '<|python_tag|> image_generator.call(prompt = "A cat wearing a hat")',
    );
    expect(spaced?.calls[0]).toEqual({
      name: "image_generator",
      arguments: { prompt: "A cat wearing a hat" },
      complete: true,
    });
  });

  it("marks a reply cut off inside the call incomplete", () => {
    const bare = read(llama3JsonFormat, '{"name": "get_weather", "parameters": {"city": "Pa');
    expect(bare?.calls).toEqual([expect.objectContaining({ name: "get_weather", complete: false })]);
    const builtin = read(llama3JsonFormat, '<|python_tag|>brave_search.call(query="weather in');
    expect(builtin?.calls[0]).toMatchObject({ name: "brave_search", complete: false });
  });

  it("leaves prose, examples and unknown names alone (vLLM llama3 test, no_json / missing keys)", () => {
    expect(read(llama3JsonFormat, "This is just some text without any tool calls")).toBeUndefined();
    const example =
      'Here is the result: {"name": "get_weather", "parameters": {}} Would you like to know more?';
    expect(read(llama3JsonFormat, example)).toBeUndefined();
    expect(read(llama3JsonFormat, '{"name": "getOpenIncidentsTool", "parameters": {}}')).toBeUndefined();
    expect(read(llama3JsonFormat, '{"name": "get_weather"}')).toBeUndefined();
    expect(read(llama3JsonFormat, '{"parameters": {}}')).toBeUndefined();
    expect(read(llama3JsonFormat, "<|python_tag|>import os\nprint(os.getcwd())")).toBeUndefined();
  });

  it("reads <|python_tag|> inside a string as text; a list after the tag that never closed is incomplete", () => {
    expectMarkersInJsonRule(llama3JsonFormat, "<|python_tag|>", "", "parameters");
    expectUnclosedListIncomplete(llama3JsonFormat, "<|python_tag|>", "parameters");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(llama3JsonFormat, "<|python_tag|>".repeat(200_000))).toBeUndefined();
    expect(survives(llama3JsonFormat, `{"name": "x", ${"{".repeat(1_000_000)}`)).toBeUndefined();
    survives(llama3JsonFormat, `<|python_tag|>a.call(${'b="'.repeat(300_000)}`);
    const cut = survives(
      llama3JsonFormat,
      `{"name": "get_weather", "parameters": {"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });
});
