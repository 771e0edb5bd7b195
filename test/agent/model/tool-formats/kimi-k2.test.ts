import { describe, expect, it } from "vitest";
import { kimiK2Format } from "../../../../src/agent/model/tool-formats/kimi-k2.ts";
import { args, completeness, read, survives } from "./json-family-helpers.ts";

const call = (id: string, json: string) =>
  `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${json}<|tool_call_end|>`;

describe("kimi_k2: <|tool_calls_section_begin|>…", () => {
  it("reads one call with its id as the name (llama.cpp ChatFormat.kimiK2 sample; vLLM kimi_k2_tool_parser.py)", () => {
    const text = `<|tool_calls_section_begin|>${call("functions.get_weather:0", '{"location":"Seoul"}')}<|tool_calls_section_end|>`;
    const m = read(kimiK2Format, text);
    expect(m?.calls).toEqual([
      { name: "functions.get_weather:0", arguments: '{"location":"Seoul"}', complete: true },
    ]);
    expect(m?.prose).toBe("");
  });

  it("reads parallel calls with prose before and after", () => {
    const text =
      "Let me look.<|tool_calls_section_begin|>\n" +
      `${call("functions.get_weather:0", '{"city": "Paris"}')}\n${call("functions.get_current_time:1", "{}")}\n` +
      "<|tool_calls_section_end|>Back soon.";
    const m = read(kimiK2Format, text);
    expect(m?.calls.map((c) => [c.name, args(c.arguments)])).toEqual([
      ["functions.get_weather:0", { city: "Paris" }],
      ["functions.get_current_time:1", {}],
    ]);
    expect(m?.prose).toBe("Let me look.\nBack soon.");
  });

  it("reads the singular section token and an id without namespace (vLLM kimi tests, marker variants)", () => {
    const text = `<|tool_call_section_begin|>${call("ping:0", "{}")}<|tool_call_section_end|>`;
    expect(read(kimiK2Format, text)?.calls).toEqual([{ name: "ping:0", arguments: "{}", complete: true }]);
  });

  it("reads a call whose end token never came: complete when the JSON closed, else incomplete", () => {
    const open =
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>";
    expect(read(kimiK2Format, `${open}{"city": "Paris"}`)?.calls[0]?.complete).toBe(true);
    expect(read(kimiK2Format, `${open}{"city": "Pa`)?.calls[0]).toMatchObject({ complete: false });
    const inId = read(kimiK2Format, "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_wea");
    expect(inId?.calls).toEqual([{ name: "functions.get_wea", arguments: "", complete: false }]);
  });

  it("claims nothing from a section without calls (vLLM kimi test, start_token_without_bodies)", () => {
    expect(read(kimiK2Format, "<|tool_calls_section_begin|> nothing inside")).toBeUndefined();
    expect(read(kimiK2Format, "No tools needed.")).toBeUndefined();
  });

  it("reads an end token inside a JSON string as text; outside it, it cuts the call off", () => {
    const m = read(
      kimiK2Format,
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.create_ticket:0<|tool_call_argument_begin|>" +
        '{"title": "x <|tool_call_end|> y"}<|tool_call_end|><|tool_calls_section_end|>',
    );
    expect(m?.calls).toEqual([
      { name: "functions.create_ticket:0", arguments: '{"title": "x <|tool_call_end|> y"}', complete: true },
    ]);
    expect(m?.prose).toBe("");
    const cut =
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.create_ticket:0<|tool_call_argument_begin|>" +
      '{"title": <|tool_call_end|><|tool_calls_section_end|>';
    expect(completeness(kimiK2Format, cut)).toEqual([["functions.create_ticket:0", false]]);
  });

  it("returns quickly on hostile text", () => {
    expect(survives(kimiK2Format, "<|tool_calls_section_begin|>".repeat(200_000))).toBeUndefined();
    survives(kimiK2Format, "<|tool_call_begin|>".repeat(200_000));
    survives(kimiK2Format, "<|tool_call_begin|>a<|tool_call_argument_begin|>{".repeat(50_000));
    const cut = survives(
      kimiK2Format,
      `<|tool_call_begin|>f:0<|tool_call_argument_begin|>{"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "f:0", complete: false });
  });
});
