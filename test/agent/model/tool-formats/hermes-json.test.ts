import { describe, expect, it } from "vitest";
import { hermesJsonFormat } from "../../../../src/agent/model/tool-formats/hermes-json.ts";
import { args, completeness, read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule, expectUnclosedListIncomplete } from "./marker-rules.ts";

describe("hermes_json: <tool_call>{json}</tool_call>", () => {
  it("reads a call between tags (vLLM tests/tool_parsers/test_hermes_tool_parser.py, between_tags)", () => {
    const m = read(
      hermesJsonFormat,
      '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}\n</tool_call>',
    );
    expect(m?.calls).toEqual([{ name: "final_answer", arguments: { trigger: true }, complete: true }]);
    expect(m?.prose).toBe("");
  });

  it("reads a call left open whose JSON closed as complete (vLLM hermes test, tool_call_until_eos)", () => {
    const m = read(hermesJsonFormat, '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}}');
    expect(m?.calls).toEqual([{ name: "final_answer", arguments: { trigger: true }, complete: true }]);
  });

  it("marks a call cut off inside its JSON incomplete (vLLM hermes test, tool_call_invalid_json)", () => {
    const m = read(hermesJsonFormat, '<tool_call>\n{"name": "final_answer", "arguments": {"trigger": true}');
    expect(m?.calls).toHaveLength(1);
    expect(m?.calls[0]).toMatchObject({ name: "final_answer", complete: false });
  });

  it("reads parallel calls and keeps the prose before them (vLLM hermes streaming tests)", () => {
    const text =
      "Sure, let me check the weather." +
      '<tool_call>{"name": "search", "arguments": {"q": "cats"}}</tool_call>' +
      '<tool_call>{"name": "search", "arguments": {"q": "dogs"}}</tool_call>';
    const m = read(hermesJsonFormat, text);
    expect(m?.calls.map((c) => args(c.arguments))).toEqual([{ q: "cats" }, { q: "dogs" }]);
    expect(m?.prose).toBe("Sure, let me check the weather.");
  });

  it("keeps arguments the model serialized as a string (vLLM hermes test, serialized_arguments)", () => {
    const m = read(
      hermesJsonFormat,
      '<tool_call>\n{"name": "get_db_config", "arguments": "{\\"param\\": \\"max_connections\\"}"}\n</tool_call>',
    );
    expect(m?.calls[0]?.name).toBe("get_db_config");
    expect(args(m!.calls[0]!.arguments)).toEqual({ param: "max_connections" });
  });

  it("reads Granite 3.1's list body (vLLM tests/tool_parsers/test_granite_tool_parser.py, string prefix)", () => {
    const m = read(
      hermesJsonFormat,
      '<tool_call> [{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get_time", "arguments": {}}]',
    );
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
    expect(m?.calls.every((c) => c.complete)).toBe(true);
  });

  it("reads Xiaomi MiMo's layout and a fenced body (llama.cpp chat-parser.cpp: xiaomi_mimo, hermes_2_pro)", () => {
    const mimo = read(
      hermesJsonFormat,
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    );
    expect(mimo?.calls[0]?.name).toBe("get_weather");
    const fenced = read(
      hermesJsonFormat,
      '<tool_call>\n```json\n{"name": "get_weather", "arguments": {}}\n```\n</tool_call>',
    );
    expect(fenced?.calls[0]).toEqual({ name: "get_weather", arguments: {}, complete: true });
    expect(fenced?.prose).toBe("");
  });

  it("leaves Qwen3-Coder and GLM XML bodies to their formats (llama.cpp qwen3_coder_xml, glm_4_5)", () => {
    const qwenCoder =
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
    expect(read(hermesJsonFormat, qwenCoder)).toBeUndefined();
    const glm = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>";
    expect(read(hermesJsonFormat, glm)).toBeUndefined();
  });

  it("reads arguments that mention the tag itself (a ticket about the markup)", () => {
    const text =
      '<tool_call>{"name": "create_ticket", "arguments": {"title": "Model printed <tool_call> in chat"}}</tool_call>';
    const m = read(hermesJsonFormat, text);
    expect(m?.calls).toEqual([
      { name: "create_ticket", arguments: { title: "Model printed <tool_call> in chat" }, complete: true },
    ]);
    expect(m?.prose).toBe("");
  });

  it("claims nothing from prose or a tag whose body is no call", () => {
    expect(read(hermesJsonFormat, "This is not a tool call.")).toBeUndefined();
    expect(
      read(hermesJsonFormat, "Use the <tool_call> tag like this: <tool_call>name here</tool_call>"),
    ).toBeUndefined();
  });

  it("reads a close tag inside a JSON string as text; outside the strings it leaves the call unfinished", () => {
    expectMarkersInJsonRule(hermesJsonFormat, "<tool_call>", "</tool_call>");
    // The next section is its own: the broken one does not swallow it.
    const broken = '<tool_call>{"name": "create_ticket", "arguments": {"title": "T-1", "urgent":</tool_call>';
    const then = `${broken}\n<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>`;
    expect(completeness(hermesJsonFormat, then)).toEqual([
      ["create_ticket", false],
      ["get_weather", true],
    ]);
  });

  it("marks every call of a list that never closed incomplete", () => {
    expectUnclosedListIncomplete(hermesJsonFormat, "<tool_call>");
    const list = '<tool_call>[{"name": "create_ticket", "arguments": {"title": "a"}}, </tool_call>';
    expect(completeness(hermesJsonFormat, list)).toEqual([["create_ticket", false]]);
  });

  it("keeps prose written inside the section after the JSON, and drops the close tag", () => {
    const m = read(
      hermesJsonFormat,
      '<tool_call>{"name": "get_weather", "arguments": {}} (checking)</tool_call> Done.',
    );
    expect(m?.calls).toEqual([{ name: "get_weather", arguments: {}, complete: true }]);
    expect(m?.prose).toBe("(checking)\nDone.");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(hermesJsonFormat, "<tool_call>".repeat(200_000))).toBeUndefined();
    const cut = survives(
      hermesJsonFormat,
      `<tool_call>{"name": "get_weather", "arguments": {"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
    survives(hermesJsonFormat, `<tool_call>{"name": "x", "arguments": {${'"'.repeat(8000)}`.repeat(64));
  });
});
