import { describe, expect, it } from "vitest";
import {
  cleanToolName,
  MAX_TOOL_NAME,
  mcpToolName,
  mcpToolNames,
  toolNameHash,
} from "../../src/mcp/tool-name.ts";

// Ours (define-tool.ts) is stricter than OpenAI's ^[a-zA-Z0-9_-]{1,64}$, so a name that passes it passes both.
const OURS = /^[a-z][a-z0-9_]{0,63}$/;
const OPENAI = /^[a-zA-Z0-9_-]{1,64}$/;

describe("MCP tool names", () => {
  it("are mcp_<server>_<tool>, lower case, invalid characters as _", () => {
    expect(mcpToolName("github", "create_issue")).toBe("mcp_github_create_issue");
    expect(mcpToolName("everything", "get-sum")).toBe("mcp_everything_get_sum");
    expect(mcpToolName("wiki", "Search.Pages v2")).toBe("mcp_wiki_search_pages_v2");
    expect(cleanToolName("")).toBe("tool");
    expect(mcpToolName("x", "überprüfen")).toMatch(OURS);
  });

  it("cut a name that is too long and add a stable hash of the whole name", () => {
    const long = `list_${"very_".repeat(20)}long_things`;
    const a = mcpToolName("github", long);
    const b = mcpToolName("github", `${long}_but_different`);
    expect(a).toHaveLength(MAX_TOOL_NAME);
    expect(a.endsWith(`_${toolNameHash(long)}`)).toBe(true);
    expect(a).not.toBe(b);
    expect(mcpToolName("github", long)).toBe(a); // same input, same name: stable across restarts
    expect(toolNameHash(long)).toMatch(/^[0-9a-f]{8}$/);
  });

  it("give every name that would collide a hash, so none is shared", () => {
    const { names, dropped } = mcpToolNames("s", ["get-sum", "get_sum", "GET_SUM", "echo"]);
    expect(dropped).toEqual([]);
    expect(names.get("echo")).toBe("mcp_s_echo");
    const hashed = ["get-sum", "get_sum", "GET_SUM"].map((t) => names.get(t));
    expect(new Set(hashed).size).toBe(3);
    for (const [tool, name] of names) {
      if (tool !== "echo") expect(name).toBe(`mcp_s_get_sum_${toolNameHash(tool)}`);
    }
    // Order of listing does not matter.
    expect(mcpToolNames("s", ["echo", "GET_SUM", "get_sum", "get-sum"]).names).toEqual(names);
  });

  it("drop a tool whose name still collides (a literal name equal to another's hashed one)", () => {
    const literal = `get_sum_${toolNameHash("get-sum")}`;
    const { names, dropped } = mcpToolNames("s", ["get-sum", "get_sum", literal]);
    expect(new Set(names.values()).size).toBe(names.size);
    expect(dropped).toHaveLength(1);
  });

  it("always fit our rule and OpenAI's, for any input", () => {
    const samples = [
      "a",
      "-",
      "_x",
      "9lives",
      "ÄÖÜ",
      "a".repeat(300),
      "x/y:z",
      "tool name with spaces",
      "🙂",
    ];
    for (const server of ["a", "github", "s".repeat(20)]) {
      for (const tool of samples) {
        const name = mcpToolName(server, tool);
        expect(name, `${server}/${tool}`).toMatch(OURS);
        expect(name).toMatch(OPENAI);
      }
    }
  });
});
