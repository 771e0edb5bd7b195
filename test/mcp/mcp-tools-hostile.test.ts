/** MCP tool lists from servers that are not on our side: their schemas must not hurt Hermes. */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/mcp/mcp-connection.ts";
import { buildMcpTools } from "../../src/mcp/mcp-tools.ts";
import { inputSchemaFromJson } from "../../src/tools/http/input-schema.ts";
import { testRegistry } from "../helpers/runtime.ts";
import { threadCpuMs } from "../security/adversarial-strings.ts";
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
    const started = threadCpuMs();
    const prepared = registry.prepare({
      id: "c1",
      name: "mcp_hostile_match",
      arguments: JSON.stringify({ s: `${"a".repeat(30)}b` }),
    });
    expect(threadCpuMs() - started).toBeLessThan(1_000);
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

  it("skips a tool whose chained $refs would expand exponentially, quickly, and keeps the others", () => {
    // Each def refers to the next twice: 22 levels inline to 2^22 copies.
    const $defs: Record<string, unknown> = { d22: { type: "string" } };
    for (let i = 21; i >= 0; i--) {
      $defs[`d${i}`] = {
        type: "object",
        properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } },
      };
    }
    const started = threadCpuMs();
    const built = buildMcpTools(
      listing([tool("chain", { properties: { x: { $ref: "#/$defs/d0" } }, $defs }), tool("fine", {})]),
    );
    expect(threadCpuMs() - started).toBeLessThan(1_000);
    expect(built.tools.map((t) => t.name)).toEqual(["mcp_hostile_fine"]);
    expect(built.skipped).toEqual([
      { tool: "chain", why: expect.stringMatching(/\$refs expand to more than/) },
    ]);
  });

  it("skips a 20,000-deep schema without dropping the server's other tools", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 20_000; i++) deep = { type: "object", properties: { a: deep } };
    const built = buildMcpTools(listing([tool("deep", { properties: { a: deep } }), tool("fine", {})]));
    expect(built.tools.map((t) => t.name)).toEqual(["mcp_hostile_fine"]);
    expect(built.skipped).toEqual([{ tool: "deep", why: expect.stringMatching(/nests deeper than 32/) }]);
  });

  it("skips a schema over 64 KiB, one with too many $refs, and one whose spec is over 32 KiB", () => {
    const big = Object.fromEntries(
      Array.from({ length: 700 }, (_, i) => [`p${i}`, { type: "string", description: "x".repeat(100) }]),
    );
    const refs = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`p${i}`, { $ref: "#/$defs/s" }]));
    const wide = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`p${i}`, { type: "string" }]));
    const built = buildMcpTools(
      listing([
        tool("big", { properties: big }),
        tool("refs", { properties: refs, $defs: { s: { type: "string" } } }),
        tool("wide", { properties: wide }),
      ]),
    );
    expect(built.tools).toEqual([]);
    expect(built.skipped).toEqual([
      { tool: "big", why: expect.stringMatching(/characters \(at most 65536\)/) },
      { tool: "refs", why: expect.stringMatching(/more than 64 \$refs/) },
      { tool: "wide", why: expect.stringMatching(/spec \(at most 32768\)/) },
    ]);
  });

  it("offers a tool the server lists twice once, and reports the second", () => {
    const built = buildMcpTools(listing([tool("echo", {}), tool("echo", {}), tool("other", {})]));
    expect(built.tools.map((t) => t.name)).toEqual(["mcp_hostile_echo", "mcp_hostile_other"]);
    expect(built.skipped).toEqual([
      { tool: "echo", why: expect.stringMatching(/lists a tool of this name twice/) },
    ]);
    expect(() => testRegistry([]).registry.replaceSource("mcp:hostile", built.tools)).not.toThrow();
  });
});
