import { describe, expect, it } from "vitest";
import { deepseekFormat } from "../../../../src/agent/model/tool-formats/deepseek.ts";
import { args, completeness, read, survives } from "./json-family-helpers.ts";

describe("deepseek: <｜tool▁calls▁begin｜>…", () => {
  it("reads V3's function<｜tool▁sep｜>name + json fence (vLLM tests/tool_parsers/test_deepseekv3_tool_parser.py)", () => {
    const text =
      "Let me check the weather for you.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n" +
      '```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    const m = read(deepseekFormat, text);
    expect(m?.calls).toEqual([{ name: "get_weather", arguments: '{"city": "Paris"}', complete: true }]);
    expect(m?.prose).toBe("Let me check the weather for you.");
  });

  it("reads V3's parallel calls (vLLM deepseekv3 test, parallel_tool_calls_output)", () => {
    const text =
      "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n" +
      '{"city": "Tokyo", "unit": "celsius"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search_hotels\n' +
      '```json\n{"location": "Tokyo", "check_in": "2025-01-15"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    expect(read(deepseekFormat, text)?.calls.map((c) => c.name)).toEqual(["get_weather", "search_hotels"]);
  });

  it("reads V3.1's name<｜tool▁sep｜>{json} with prose around (vLLM tests/tool_parsers/test_deepseekv31_tool_parser.py)", () => {
    const text =
      "some prefix text<｜tool▁calls▁begin｜>" +
      '<｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜>' +
      '<｜tool▁call▁begin｜>bar<｜tool▁sep｜>{"y":2}<｜tool▁call▁end｜>' +
      "<｜tool▁calls▁end｜> some suffix text";
    const m = read(deepseekFormat, text);
    expect(m?.calls).toEqual([
      { name: "foo", arguments: '{"x":1}', complete: true },
      { name: "bar", arguments: '{"y":2}', complete: true },
    ]);
    expect(m?.prose).toBe("some prefix text\nsome suffix text");
  });

  it("reads the spellings llama.cpp accepts and ASCII lookalikes (llama.cpp deepseek_r1; tt-inference-server #3683)", () => {
    const variant = read(
      deepseekFormat,
      '<｜tool calls begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Rome"}<｜tool▁call▁end｜>',
    );
    expect(variant?.calls[0]?.name).toBe("get_weather");
    const ascii = read(
      deepseekFormat,
      '<|tool_calls_begin|><|tool_call_begin|>get_weather<|tool_sep|>{"city": "Rome"}<|tool_call_end|><|tool_calls_end|>',
    );
    expect(ascii?.calls.map((c) => [c.name, args(c.arguments)])).toEqual([["get_weather", { city: "Rome" }]]);
  });

  it("marks calls cut off incomplete (vLLM deepseekv31 test, unparsable_block: cut off in the name)", () => {
    const inName = read(deepseekFormat, "Let me look that up.<｜tool▁calls▁begin｜>get_weather");
    expect(inName?.calls).toEqual([{ name: "get_weather", arguments: "", complete: false }]);
    expect(inName?.prose).toBe("Let me look that up.");
    const inArgs = read(
      deepseekFormat,
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Ro',
    );
    expect(inArgs?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });

  it("claims no DSML, Kimi or plain text", () => {
    expect(read(deepseekFormat, "How can I help you today? I can check weather for you.")).toBeUndefined();
    expect(
      read(deepseekFormat, '<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">'),
    ).toBeUndefined();
    const kimi =
      "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>";
    expect(read(deepseekFormat, kimi)).toBeUndefined();
  });

  it("reads an end token inside a JSON string as text; outside it, it cuts the call off", () => {
    const m = read(
      deepseekFormat,
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>create_ticket<｜tool▁sep｜>{"title": "x <｜tool▁call▁end｜> y"}' +
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    );
    expect(m?.calls).toEqual([
      { name: "create_ticket", arguments: '{"title": "x <｜tool▁call▁end｜> y"}', complete: true },
    ]);
    expect(m?.prose).toBe("");
    const cut =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>create_ticket<｜tool▁sep｜>{"title": <｜tool▁call▁end｜><｜tool▁calls▁end｜>';
    expect(completeness(deepseekFormat, cut)).toEqual([["create_ticket", false]]);
  });

  it("reads text after the last call's end token as prose, not as a call cut off", () => {
    const call =
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>create_ticket<｜tool▁sep｜>{"title": "a"}<｜tool▁call▁end｜>';
    for (const text of [`${call}\nDone`, `${call}<｜tool▁calls▁end｜>\nDone`]) {
      const m = read(deepseekFormat, text);
      expect(m?.calls).toEqual([{ name: "create_ticket", arguments: '{"title": "a"}', complete: true }]);
      expect(m?.prose).toBe("Done");
    }
  });

  it("returns quickly on hostile text (sglang PR #5224: repeated begin tokens)", () => {
    expect(survives(deepseekFormat, `${"<｜tool▁calls▁begin｜>".repeat(200_000)}MMMM\nMMMM`)).toBeUndefined();
    survives(deepseekFormat, "<｜tool▁call▁begin｜>".repeat(200_000));
    survives(deepseekFormat, "<｜tool▁calls▁begin｜>a<｜tool▁sep｜>{".repeat(50_000));
    const cut = survives(
      deepseekFormat,
      `<｜tool▁calls▁begin｜>f<｜tool▁sep｜>{"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "f", complete: false });
  });
});
