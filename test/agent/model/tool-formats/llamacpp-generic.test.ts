import { describe, expect, it } from "vitest";
import { llamaCppGenericFormat } from "../../../../src/agent/model/tool-formats/llamacpp-generic.ts";
import { read, survives } from "./json-family-helpers.ts";

describe("llamacpp_generic: {tool_calls} / {tool_call} / {response}", () => {
  it("reads tool_calls with ids (llama.cpp chat-parser.cpp common_chat_parse_generic)", () => {
    const text =
      '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "123456789"},' +
      ' {"name": "get_current_time", "arguments": {}, "id": "987654321"}]}';
    const m = read(llamaCppGenericFormat, text);
    expect(m?.calls).toEqual([
      { name: "get_weather", arguments: { city: "Paris" }, complete: true },
      { name: "get_current_time", arguments: {}, complete: true },
    ]);
    expect(m?.prose).toBe("");
  });

  it("reads the single tool_call the generic prompt asks for (llama.cpp chat.cpp generic system prompt)", () => {
    const m = read(
      llamaCppGenericFormat,
      '{\n  "tool_call": {"name": "create_ticket", "arguments": {"title": "VPN down"}}\n}',
    );
    expect(m?.calls).toEqual([{ name: "create_ticket", arguments: { title: "VPN down" }, complete: true }]);
  });

  it("keeps the text written beside the calls as prose (GLM-4.5 on llama.cpp, PR #15186)", () => {
    const m = read(
      llamaCppGenericFormat,
      '{"tool_calls": [{"name": "create_ticket", "arguments": {"title": "VPN down"}}], "content": "Filing it."}',
    );
    expect(m).toEqual({
      calls: [{ name: "create_ticket", arguments: { title: "VPN down" }, complete: true }],
      prose: "Filing it.",
    });
  });

  it("turns a response into prose (llama.cpp generic: content_paths {response})", () => {
    const m = read(llamaCppGenericFormat, '{"response": "It is sunny in Paris."}');
    expect(m).toEqual({ calls: [], prose: "It is sunny in Paris." });
  });

  it("marks a reply cut off inside the call incomplete", () => {
    const m = read(llamaCppGenericFormat, '{"tool_call": {"name": "get_weather", "arguments": {"city": "Pa');
    expect(m?.calls).toEqual([expect.objectContaining({ name: "get_weather", complete: false })]);
  });

  it("claims only a whole reply whose names are offered tools", () => {
    expect(
      read(llamaCppGenericFormat, 'Send {"tool_call": {"name": "get_weather", "arguments": {}}} to call it.'),
    ).toBeUndefined();
    expect(
      read(llamaCppGenericFormat, '{"tool_call": {"name": "delete_everything", "arguments": {}}}'),
    ).toBeUndefined();
    expect(read(llamaCppGenericFormat, '{"tool_calls": "none"}')).toBeUndefined();
  });

  it("returns quickly on hostile text", () => {
    survives(llamaCppGenericFormat, `{"tool_calls": ${"[".repeat(1_000_000)}`);
    survives(llamaCppGenericFormat, `{"response": "${'"'.repeat(1_000_000)}`);
  });
});
