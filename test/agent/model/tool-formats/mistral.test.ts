import { describe, expect, it } from "vitest";
import { mistralFormat } from "../../../../src/agent/model/tool-formats/mistral.ts";
import { args, read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule, expectUnclosedListIncomplete } from "./marker-rules.ts";

describe("mistral: [TOOL_CALLS]", () => {
  it("reads the pre-v11 list, arguments before name too (vLLM tests/tool_parsers/test_mistral_tool_parser.py)", () => {
    const m = read(
      mistralFormat,
      '[TOOL_CALLS] [{"arguments":{"name": "John Doe"}, "name": "get_age"}, {"name": "add", "arguments":{"a": 3.5, "b": 4}}]',
    );
    expect(m?.calls.map((c) => [c.name, args(c.arguments)])).toEqual([
      ["get_age", { name: "John Doe" }],
      ["add", { a: 3.5, b: 4 }],
    ]);
    expect(m?.prose).toBe("");
  });

  it("reads Mistral Nemo's ids and keeps prose before and after (vLLM mistral test; llama.cpp mistral_nemo)", () => {
    const m = read(
      mistralFormat,
      'Hello[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Dallas"}, "id": "123456789"}]\nextra trailing data',
    );
    expect(m?.calls).toEqual([{ name: "get_weather", arguments: { city: "Dallas" }, complete: true }]);
    expect(m?.prose).toBe("Hello\nextra trailing data");
  });

  it("reads v11 name{…} segments, several [TOOL_CALLS] (vLLM mistral test, v11 multiple_tool_calls)", () => {
    const m = read(mistralFormat, '[TOOL_CALLS]add{"a": 3.5, "b": 4}[TOOL_CALLS]multiply{"a": 3, "b": 6}');
    expect(m?.calls).toEqual([
      { name: "add", arguments: '{"a": 3.5, "b": 4}', complete: true },
      { name: "multiply", arguments: '{"a": 3, "b": 6}', complete: true },
    ]);
  });

  it("reads braces inside strings and prose with braces before (vLLM mistral test, wrong_json)", () => {
    const text = 'hi{hi[TOOL_CALLS]bash{"command": "print(\\"hello world!\\")\\nre.compile(r\'{}\')"}';
    const m = read(mistralFormat, text);
    expect(m?.calls[0]?.name).toBe("bash");
    expect(args(m!.calls[0]!.arguments)).toEqual({ command: "print(\"hello world!\")\nre.compile(r'{}')" });
    expect(m?.prose).toBe("hi{hi");
  });

  it("reads Magistral / Devstral name[ARGS]{…} (Ollama model/parsers ministral tests; llama.cpp ministral3)", () => {
    const m = read(mistralFormat, '[TOOL_CALLS]get_weather[ARGS]{"location": "San Francisco"}');
    expect(m?.calls).toEqual([
      { name: "get_weather", arguments: '{"location": "San Francisco"}', complete: true },
    ]);
    const twoInARow = read(
      mistralFormat,
      '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}get_current_time[ARGS]{}',
    );
    expect(twoInARow?.calls.map((c) => c.name)).toEqual(["get_weather", "get_current_time"]);
  });

  it("reads Mistral Small 3.2's [CALL_ID] (mistral-common v11 rendering)", () => {
    const text =
      '[TOOL_CALLS]get_weather[CALL_ID]abcDEF123[ARGS]{"city": "Zürich"}' +
      '[TOOL_CALLS]get_weather[CALL_ID]xyzXYZ789[ARGS]{"city": "Bern"}';
    expect(read(mistralFormat, text)?.calls.map((c) => args(c.arguments))).toEqual([
      { city: "Zürich" },
      { city: "Bern" },
    ]);
  });

  it("marks cut-off calls incomplete (vLLM mistral test, complex; v11_without_args)", () => {
    const cut = read(mistralFormat, '[TOOL_CALLS]bash{"command": "print(\\"hello');
    expect(cut?.calls).toEqual([expect.objectContaining({ name: "bash", complete: false })]);
    expect(read(mistralFormat, "[TOOL_CALLS]toolname_no_args")?.calls).toEqual([
      { name: "toolname_no_args", arguments: "", complete: false },
    ]);
  });

  it("claims nothing from prose after the token (vLLM mistral test, regex_fallback_fails)", () => {
    expect(read(mistralFormat, "This is a test")).toBeUndefined();
    expect(read(mistralFormat, "[TOOL_CALLS] not json at all")).toBeUndefined();
    const after = read(mistralFormat, '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"} see {this}');
    expect(after?.calls).toHaveLength(1);
    expect(after?.prose).toBe("see {this}");
  });

  it("marks every call of a list that never closed incomplete; [TOOL_CALLS] inside a string is text", () => {
    expectUnclosedListIncomplete(mistralFormat, "[TOOL_CALLS]");
    expectMarkersInJsonRule(mistralFormat, "[TOOL_CALLS]", "");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(mistralFormat, "[TOOL_CALLS]".repeat(200_000))).toBeUndefined();
    survives(mistralFormat, `[TOOL_CALLS]${"[{".repeat(500_000)}`);
    survives(mistralFormat, "[TOOL_CALLS]a[ARGS]{".repeat(100_000));
    const cut = survives(mistralFormat, `[TOOL_CALLS]get_weather[ARGS]{"q": "${"a".repeat(1_000_000)}`);
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });
});
