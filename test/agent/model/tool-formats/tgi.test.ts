import { describe, expect, it } from "vitest";
import { tgiFormat } from "../../../../src/agent/model/tool-formats/tgi.ts";
import { read, survives } from "./json-family-helpers.ts";

describe('tgi: {"function": {"_name": …, …arguments}}', () => {
  it("reads TGI's grammar output (huggingface/text-generation-inference router/src/chat.rs parse_output)", () => {
    const m = read(
      tgiFormat,
      '{"function": {"_name": "get_weather", "location": "Brooklyn, NY", "format": "celsius"}}',
    );
    expect(m?.calls).toEqual([
      { name: "get_weather", arguments: { location: "Brooklyn, NY", format: "celsius" }, complete: true },
    ]);
    expect(m?.prose).toBe("");
  });

  it("turns no_tool and notify_error into prose (TGI tool_grammar.rs no_tool; PR #2597 notify_error)", () => {
    expect(
      read(tgiFormat, '{"function": {"_name": "no_tool", "content": "Hello! How can I help?"}}'),
    ).toEqual({
      calls: [],
      prose: "Hello! How can I help?",
    });
    expect(read(tgiFormat, '{"function": {"_name": "notify_error", "error": "Which city?"}}')?.prose).toBe(
      "Which city?",
    );
  });

  it("marks a reply cut off mid-arguments incomplete", () => {
    const m = read(tgiFormat, '{"function": {"_name": "get_weather", "location": "Brook');
    expect(m?.calls).toEqual([expect.objectContaining({ name: "get_weather", complete: false })]);
  });

  it("claims only a whole reply naming an offered tool", () => {
    expect(read(tgiFormat, '{"function": {"_name": "rm_rf", "path": "/"}}')).toBeUndefined();
    expect(read(tgiFormat, 'TGI answers like {"function": {"_name": "get_weather"}} here.')).toBeUndefined();
    expect(read(tgiFormat, '{"function": {"name": "get_weather"}}')).toBeUndefined();
  });

  it("returns quickly on hostile text", () => {
    survives(tgiFormat, `{"function": {"_name": "${"a".repeat(1_000_000)}`);
    survives(tgiFormat, `{"_name": ${"{".repeat(1_000_000)}`);
  });
});
