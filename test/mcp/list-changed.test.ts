import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type McpToolSource, startMcpServers } from "../../src/mcp/mcp-tool-source.ts";
import type { Tool } from "../../src/tools/define-tool.ts";
import { call, FAST_BACKOFF, killPid, pidOf, registryOf, serverConfig, waitFor } from "./mcp-harness.ts";

const FIXTURE = resolve(import.meta.dirname, "fixtures/changing-server.ts");

describe("an MCP server whose tool list changes", () => {
  let source: McpToolSource | undefined;
  let pid: number | undefined;

  beforeAll(async () => {
    source = await startMcpServers(
      [
        serverConfig({
          name: "changing",
          transport: "stdio",
          command: process.execPath,
          args: [FIXTURE],
          approval: "never",
        }),
      ],
      silentLogger(),
      { backoff: FAST_BACKOFF },
    );
    pid = pidOf(source, "changing");
  });

  afterAll(async () => {
    await source?.close();
    killPid(pid);
  });

  it("lists the tools again on notifications/tools/list_changed and tells the listeners", async () => {
    expect(source!.health().changing?.state).toBe("ready");
    expect(source!.tools().map((t) => t.name)).not.toContain("mcp_changing_added_1");
    const seen: Tool[][] = [];
    const stop = source!.onChange((server, tools) => {
      expect(server).toBe("changing");
      seen.push(tools);
    });
    try {
      const added = await call(registryOf(source!), "mcp_changing_add_tool", {});
      expect(added.content).toBe("added added_1");
      const tools = await waitFor(
        () => seen.find((list) => list.some((t) => t.name === "mcp_changing_added_1")),
        "the new tool",
      );
      expect(source!.health().changing?.tools).toBe(4);
      // A registry built from the new list calls the new tool, with its schema validated.
      const registry = registryOf(source!);
      expect(tools.map((t) => t.name)).toContain("mcp_changing_added_1");
      expect((await call(registry, "mcp_changing_added_1", { x: "7" })).content).toBe("added_1 got 7");
      expect((await call(registry, "mcp_changing_added_1", { x: "seven" })).invalid).toBe("invalid_args");
    } finally {
      stop();
    }
  });

  it("cancelling the turn cancels the request on the server", async () => {
    const registry = registryOf(source!);
    const turn = new AbortController();
    const started = Date.now();
    const pending = call(registry, "mcp_changing_wait", {}, { signal: turn.signal });
    // Once the call is under way (the tool's own timeout is 30 s: only the cancellation can end it soon).
    setTimeout(() => turn.abort(new Error("turn cancelled")), 300);
    expect((await pending).ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(5_000);
    await waitFor(
      async () => (await call(registry, "mcp_changing_cancelled", {})).content === "1",
      "the server saw the cancellation",
    );
  });
});
