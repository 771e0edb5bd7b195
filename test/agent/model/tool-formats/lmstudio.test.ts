import { describe, expect, it } from "vitest";
import { lmStudioFormat } from "../../../../src/agent/model/tool-formats/lmstudio.ts";
import { read, survives } from "./json-family-helpers.ts";
import { expectMarkersInJsonRule } from "./marker-rules.ts";

describe("lmstudio: [TOOL_REQUEST]{json}[END_TOOL_REQUEST]", () => {
  it("reads LM Studio's default tool-use block (lmstudio.ai/docs/advanced/tool-use, default tool use)", () => {
    const m = read(
      lmStudioFormat,
      '[TOOL_REQUEST]{"name": "get_delivery_date", "arguments": {"order_id": "123"}}[END_TOOL_REQUEST]',
    );
    expect(m?.calls).toEqual([{ name: "get_delivery_date", arguments: { order_id: "123" }, complete: true }]);
    expect(m?.prose).toBe("");
  });

  it("reads parallel requests with prose around them", () => {
    const text =
      "I'll look both up.\n[TOOL_REQUEST]\n" +
      '{"name": "get_weather", "arguments": {"location": "Leeds"}}\n[END_TOOL_REQUEST]\n' +
      '[TOOL_REQUEST]{"name": "get_current_time", "arguments": {}}[END_TOOL_REQUEST]\nOne moment.';
    const m = read(lmStudioFormat, text);
    expect(m?.calls.map((c) => c.name)).toEqual(["get_weather", "get_current_time"]);
    expect(m?.prose).toBe("I'll look both up.\nOne moment.");
  });

  it("reads a request never ended: complete when its JSON closed, else incomplete", () => {
    const closed = read(
      lmStudioFormat,
      '[TOOL_REQUEST]{"name": "get_weather", "arguments": {"location": "Leeds"}}',
    );
    expect(closed?.calls[0]?.complete).toBe(true);
    const cut = read(lmStudioFormat, '[TOOL_REQUEST]{"name": "get_weather", "arguments": {"location": "Le');
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });

  it("leaves VCP's key-value blocks and prose alone (VCPToolBox <<<[TOOL_REQUEST]>>> protocol)", () => {
    const vcp =
      "<<<[TOOL_REQUEST]>>>\ntool_name:「始」DingTalkTable「末」,\naction:「始」list_tables「末」\n<<<[END_TOOL_REQUEST]>>>";
    expect(read(lmStudioFormat, vcp)).toBeUndefined();
    expect(read(lmStudioFormat, "No tools needed here.")).toBeUndefined();
  });

  it("reads [END_TOOL_REQUEST] inside a JSON string as text; outside it, it cuts the call off", () => {
    expectMarkersInJsonRule(lmStudioFormat, "[TOOL_REQUEST]", "[END_TOOL_REQUEST]");
  });

  it("returns quickly on hostile text", () => {
    expect(survives(lmStudioFormat, "[TOOL_REQUEST]".repeat(200_000))).toBeUndefined();
    survives(lmStudioFormat, `[TOOL_REQUEST]{"name": "x", "arguments": {${'"'.repeat(8000)}`.repeat(64));
    const cut = survives(
      lmStudioFormat,
      `[TOOL_REQUEST]{"name": "get_weather", "arguments": {"q": "${"a".repeat(1_000_000)}`,
    );
    expect(cut?.calls[0]).toMatchObject({ name: "get_weather", complete: false });
  });
});
