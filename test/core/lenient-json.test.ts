import { describe, expect, it } from "vitest";
import { MAX_REPAIR_CHARS, parseLenientJson } from "../../src/core/lenient-json.ts";

describe("parseLenientJson", () => {
  it("repairs short text with jsonrepair: a code fence, Python literals, single quotes, trailing commas", () => {
    expect(parseLenientJson("```json\n{'title': 'VPN down', 'urgent': True, 'owner': None,}\n```")).toEqual({
      ok: true,
      value: { title: "VPN down", urgent: true, owner: null },
      repaired: ["json_repair"],
    });
    // Python literals inside strings stay text.
    expect(parseLenientJson("{'note': 'True story'}")).toMatchObject({ value: { note: "True story" } });
  });

  it("takes the code fence off valid JSON too long for jsonrepair, and refuses it broken", () => {
    const body = JSON.stringify({ title: "y".repeat(MAX_REPAIR_CHARS) });
    expect(parseLenientJson(`\`\`\`json\n${body}\n\`\`\``)).toEqual({
      ok: true,
      value: JSON.parse(body),
      repaired: ["code_fence"],
    });
    const broken = parseLenientJson(`\`\`\`json\n${body.slice(0, -1)},}\n\`\`\``);
    expect(!broken.ok && broken.error).toMatch(/is not repaired/);
  });

  it("unwraps JSON encoded twice, and reads blank text as no arguments", () => {
    expect(parseLenientJson(JSON.stringify(JSON.stringify({ a: 1 })))).toEqual({
      ok: true,
      value: { a: 1 },
      repaired: ["double_encoded"],
    });
    expect(parseLenientJson("  ")).toEqual({ ok: true, value: {}, repaired: ["empty_arguments"] });
  });
});
