import { describe, expect, it } from "vitest";
import { xlamFormat } from "../../../../src/agent/model/tool-formats/xlam.ts";
import { args, completeness, read, survives } from "./json-family-helpers.ts";

// The vLLM cases call get_current_weather; here the offered tool is get_weather.
const DALLAS =
  '{"name": "get_weather", "arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}}';
const ORLANDO =
  '{"name": "get_weather", "arguments": {"city": "Orlando", "state": "FL", "unit": "fahrenheit"}}';

describe("xlam: a whole reply that is a JSON call list", () => {
  it("reads parallel calls (vLLM tests/tool_parsers/test_xlam_tool_parser.py, parallel_tool_calls)", () => {
    const m = read(xlamFormat, `[${DALLAS}, ${ORLANDO}]`);
    expect(m?.calls.map((c) => (args(c.arguments) as { city: string }).city)).toEqual(["Dallas", "Orlando"]);
    expect(m?.calls.every((c) => c.complete)).toBe(true);
    expect(m?.prose).toBe("");
  });

  it("reads a list in a json fence that is the whole reply (vLLM xlam test, json code block, streaming case)", () => {
    const m = read(xlamFormat, `\`\`\`json\n[${DALLAS}]\n\`\`\``);
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather"]);
  });

  it("reads a single call object in a fence", () => {
    const m = read(xlamFormat, '```json\n{"name": "create_ticket", "arguments": {"title": "VPN down"}}\n```');
    expect(m?.calls).toEqual([{ name: "create_ticket", arguments: { title: "VPN down" }, complete: true }]);
  });

  it("marks every call of a list cut off (mid-call or after a comma) incomplete", () => {
    const m = read(xlamFormat, `[${DALLAS}, {"name": "get_weather", "arguments": {"city": "Orl`);
    expect(m?.calls.map((c) => c.complete)).toEqual([false, false]);
    const afterComma = read(xlamFormat, `[${DALLAS}, `);
    expect(afterComma?.calls.map((c) => [c.name, c.complete])).toEqual([["get_weather", false]]);
  });

  it("claims no list with prose around it, an unknown name, or llama.cpp's tool_calls object", () => {
    expect(read(xlamFormat, `I'll help you with that.\n\`\`\`json\n[${DALLAS}]\n\`\`\``)).toBeUndefined();
    expect(read(xlamFormat, '[{"name": "get_current_weather", "arguments": {}}]')).toBeUndefined();
    expect(
      read(xlamFormat, '```json\n{"tool_calls": [{"name": "get_weather", "arguments": {}}]}\n```'),
    ).toBeUndefined();
    expect(read(xlamFormat, "[1, 2, 3]")).toBeUndefined();
    expect(read(xlamFormat, "This is a test")).toBeUndefined();
  });

  it("marks a bare list that never closed incomplete, however many calls closed inside it", () => {
    expect(completeness(xlamFormat, `[${DALLAS}, ${DALLAS}`)).toEqual([
      ["get_weather", false],
      ["get_weather", false],
    ]);
  });

  it("returns quickly on hostile text", () => {
    expect(survives(xlamFormat, "[".repeat(1_000_000))).toBeUndefined();
    const cut = survives(xlamFormat, `[{"name": "get_weather", "arguments": {"q": "${"a".repeat(1_000_000)}`);
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });
});
