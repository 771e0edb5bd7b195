import { describe, expect, it } from "vitest";
import { renderMcpResult } from "../../src/mcp/mcp-result.ts";
import {
  CappedCallToolResultSchema,
  MAX_RENDERED_CHARS,
  MAX_RESULT_BLOCKS,
  omittedBlocks,
} from "../../src/mcp/result-limits.ts";
import { run } from "./mcp-harness.ts";

const ctx = { server: "wiki", tool: "get-page", run: run() };
const blocks = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "text", text: `line ${i}` }));

describe("one MCP result's limits", () => {
  it("the result schema keeps the first blocks and counts the rest, before validating them", () => {
    // Blocks past the cap are never validated: one that would fail the schema there fails nothing.
    const result = CappedCallToolResultSchema.parse({
      content: [...blocks(MAX_RESULT_BLOCKS), { type: "no-such-type" }, ...blocks(499)],
    });
    expect(result.content).toHaveLength(MAX_RESULT_BLOCKS);
    expect(omittedBlocks(result)).toBe(500);
    // A server cannot claim blocks were left out.
    const spoofed = CappedCallToolResultSchema.parse({
      content: blocks(2),
      "hermes/omittedContentBlocks": 7,
    });
    expect(omittedBlocks(spoofed)).toBe(0);
    // Within the cap the SDK's schema still refuses a bad block.
    expect(() => CappedCallToolResultSchema.parse({ content: [{ type: "no-such-type" }] })).toThrow();
  });

  it("rendering stops at the character cap, inside a block, and says what was left out", async () => {
    const text = await renderMcpResult(
      {
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "y".repeat(MAX_RENDERED_CHARS) },
          { type: "text", text: "third" },
        ],
        structuredContent: { a: 1 },
      },
      ctx,
    );
    expect(text.startsWith("first\n\nyyy")).toBe(true);
    expect(text).not.toContain("third");
    expect(text).toMatch(
      /\[the rest of content block 2 and 1 more blocks \(of 3\), and the structured content left out: one result shows at most 1000 blocks and 262144 characters\]$/,
    );
    expect(text.length).toBeLessThan(MAX_RENDERED_CHARS + 200);
  });

  it("structured content too large for what is left is cut, saying how much of it shows", async () => {
    const text = await renderMcpResult(
      {
        content: [{ type: "text", text: "data follows" }],
        structuredContent: { big: "z".repeat(MAX_RENDERED_CHARS) },
      },
      ctx,
    );
    expect(text).toMatch(
      /^data follows\n\nStructured content \(the first \d+ of \d+ characters; the rest left out\):\n\{/,
    );
    expect(text.length).toBeLessThan(MAX_RENDERED_CHARS + 200);
  });
});
