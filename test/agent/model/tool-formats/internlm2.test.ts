import { describe, expect, it } from "vitest";
import { internlm2Format } from "../../../../src/agent/model/tool-formats/internlm2.ts";
import { read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule } from "./marker-rules.ts";

describe("internlm2: <|action_start|><|plugin|>{json}<|action_end|>", () => {
  it("reads one action (vLLM tests/tool_parsers/test_internlm2_tool_parser.py, single_tool_call_output)", () => {
    const m = read(
      internlm2Format,
      '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>',
    );
    expect(m?.calls).toEqual([{ name: "get_weather", arguments: { city: "Tokyo" }, complete: true }]);
    expect(m?.prose).toBe("");
  });

  it("keeps the prose before the action (vLLM internlm2 test, surrounding_text_output)", () => {
    const m = read(
      internlm2Format,
      'Let me check the weather for you. <|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>',
    );
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather"]);
    expect(m?.prose).toBe("Let me check the weather for you.");
  });

  it("reads several actions in turn and the newline InternLM2.5's template writes", () => {
    const text =
      '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>\n' +
      '<|action_start|><|plugin|>\n{"name": "get_current_time", "parameters": {}}<|action_end|>';
    expect(read(internlm2Format, text)?.calls.map((c) => c.name)).toEqual([
      "get_weather",
      "get_current_time",
    ]);
  });

  it("marks an action cut off mid-JSON incomplete (vLLM internlm2 test, malformed_input_outputs[0])", () => {
    const m = read(internlm2Format, '<|action_start|><|plugin|>{"name": "func", "parameters": {');
    expect(m?.calls).toEqual([expect.objectContaining({ name: "func", complete: false })]);
  });

  it("claims no code-interpreter action or broken plugin action (vLLM internlm2 malformed inputs)", () => {
    expect(read(internlm2Format, "<|action_start|><|interpreter|>print(1)<|action_end|>")).toBeUndefined();
    expect(read(internlm2Format, "<|action_start|><|plugin|>not json<|action_end|>")).toBeUndefined();
    expect(read(internlm2Format, '<|action_start|>{"name": "func"}')).toBeUndefined();
  });

  it("reads <|action_end|> inside a JSON string as text; outside it, it cuts the call off", () => {
    expectMarkersInJsonRule(internlm2Format, "<|action_start|><|plugin|>", "<|action_end|>", "parameters");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(internlm2Format, "<|action_start|><|plugin|>".repeat(200_000))).toBeUndefined();
    const cut = survives(
      internlm2Format,
      `<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });
});
