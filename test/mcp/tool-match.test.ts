/** include/exclude globs and `tools:` overrides against the names servers really send. */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/mcp/mcp-connection.ts";
import { buildMcpTools } from "../../src/mcp/mcp-tools.ts";
import { serverConfig } from "./mcp-harness.ts";

function listing(names: string[], entry: Record<string, unknown>): McpConnection {
  const config = serverConfig({ name: "srv", transport: "stdio", command: "unused", ...entry });
  const tools = names.map((name) => ({ name, inputSchema: { type: "object" } }) as McpTool);
  return { config, name: config.name, tools } as unknown as McpConnection;
}

describe("matching the server's tool names", () => {
  it("exclude globs match the cleaned name too: delete_* excludes Delete_repo and delete-repo", () => {
    const built = buildMcpTools(listing(["Delete_repo", "delete-repo", "read"], { exclude: ["delete_*"] }));
    expect(built.tools.map((t) => t.name)).toEqual(["mcp_srv_read"]);
  });

  it("include globs match the cleaned name too", () => {
    const built = buildMcpTools(listing(["Read-File", "write"], { include: ["read_*"] }));
    expect(built.tools.map((t) => t.name)).toEqual(["mcp_srv_read_file"]);
  });

  it("an override for write_file applies to write-file; an exact key wins over a cleaned one", () => {
    const built = buildMcpTools(
      listing(["write-file", "Get-Sum"], {
        approval: "never",
        tools: {
          write_file: { approval: "always" },
          get_sum: { level: "admin" },
          "Get-Sum": { level: "viewer" },
        },
      }),
    );
    expect(built.info.map((i) => [i.mcpName, i.approval, i.level])).toEqual([
      ["write-file", "always", "user"],
      ["Get-Sum", "never", "viewer"],
    ]);
    expect(built.unusedOverrides).toEqual([]);
  });

  it("reports an override key that matches no listed tool, and ignores inherited keys", () => {
    const built = buildMcpTools(
      listing(["constructor", "read"], { tools: { raed: { approval: "always" } } }),
    );
    expect(built.unusedOverrides).toEqual(["raed"]);
    expect(built.info.map((i) => i.mcpName).sort()).toEqual(["constructor", "read"]);
  });
});
