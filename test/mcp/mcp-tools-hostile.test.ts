/** MCP tool lists from servers that are not on our side: their schemas must not hurt Hermes. */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/mcp/mcp-connection.ts";
import { buildMcpTools } from "../../src/mcp/mcp-tools.ts";
import { inputSchemaFromJson } from "../../src/tools/http/input-schema.ts";
import { testRegistry } from "../helpers/runtime.ts";
import { serverConfig } from "./mcp-harness.ts";

/** A connection that only lists: buildMcpTools reads `config` and `tools`. */
function listing(tools: McpTool[], entry: Record<string, unknown> = {}): McpConnection {
  const config = serverConfig({ name: "hostile", transport: "stdio", command: "unused", ...entry });
  return { config, name: config.name, tools } as unknown as McpConnection;
}

function tool(name: string, inputSchema: Record<string, unknown>): McpTool {
  return { name, inputSchema: { type: "object", ...inputSchema } } as McpTool;
}

describe("buildMcpTools against a hostile server", () => {
  it("does not run a server's pattern on the model's arguments (ReDoS)", () => {
    const built = buildMcpTools(
      listing([
        tool("match", { properties: { s: { type: "string", pattern: "^(a+)+$" } }, required: ["s"] }),
      ]),
    );
    const { registry } = testRegistry(built.tools);
    const started = performance.now();
    const prepared = registry.prepare({
      id: "c1",
      name: "mcp_hostile_match",
      arguments: JSON.stringify({ s: `${"a".repeat(30)}b` }),
    });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(prepared.ok).toBe(true);
  });

  it("does not run patternProperties' keys as regexes, and lets those keys through", () => {
    const built = buildMcpTools(
      listing([tool("map", { properties: { m: { type: "object", patternProperties: { "^(a+)+$": {} } } } })]),
    );
    const { registry } = testRegistry(built.tools);
    const prepared = registry.prepare({
      id: "c1",
      name: "mcp_hostile_map",
      arguments: JSON.stringify({ m: { [`${"a".repeat(30)}b`]: 1 } }),
    });
    expect(prepared.ok).toBe(true);
  });

  it("caps string arguments at 100k characters", () => {
    const built = buildMcpTools(listing([tool("text", { properties: { s: { type: "string" } } })]));
    const { registry } = testRegistry(built.tools);
    const prepared = registry.prepare({
      id: "c1",
      name: "mcp_hostile_text",
      arguments: JSON.stringify({ s: "x".repeat(100_001) }),
    });
    expect(prepared.ok).toBe(false);
  });

  it("leaves HTTP tools' patterns (admin-written) as they were", () => {
    const input = inputSchemaFromJson({
      type: "object",
      properties: { s: { type: "string", pattern: "^a$" } },
    });
    expect(input.ok && input.schema.safeParse({ s: "b" }).success).toBe(false);
    expect(inputSchemaFromJson({ properties: { s: { type: "string", pattern: "(" } } }).ok).toBe(false);
  });
});
