import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { startMcpServers } from "../../src/mcp/mcp-tool-source.ts";
import { FAST_BACKOFF, killPid, pidOf, serverConfig, waitFor } from "./mcp-harness.ts";

const FIXTURE = resolve(import.meta.dirname, "fixtures/changing-server.ts");

describe("startMcpServers", () => {
  it("does not stop start-up for a server that cannot start: it is down, with the reason, and retried", async () => {
    const source = await startMcpServers(
      [serverConfig({ name: "broken", transport: "stdio", command: "/nonexistent/mcp-server" })],
      silentLogger(),
      { backoff: { initialMs: 50, maxMs: 200 } },
    );
    try {
      expect(source.tools()).toEqual([]);
      const health = source.health().broken;
      expect(health?.state).toMatch(/down|connecting/);
      await waitFor(() => source.health().broken?.error?.includes("ENOENT"), "the reason");
      const firstSince = source.health().broken!.since;
      await waitFor(() => source.health().broken!.since !== firstSince, "a retry");
    } finally {
      await source.close();
    }
    expect(source.health().broken?.state).toBe("closed");
  });

  it("never reuses a reserved name (a built-in or another source's tool)", async () => {
    const source = await startMcpServers(
      [serverConfig({ name: "changing", transport: "stdio", command: process.execPath, args: [FIXTURE] })],
      silentLogger(),
      { backoff: FAST_BACKOFF, reserved: ["mcp_changing_wait"] },
    );
    const pid = pidOf(source, "changing");
    try {
      expect(
        source
          .tools()
          .map((t) => t.name)
          .sort(),
      ).toEqual(["mcp_changing_add_tool", "mcp_changing_cancelled"]);
      expect(source.health().changing?.skipped).toEqual([
        { tool: "wait", why: "mcp_changing_wait is already the name of another tool" },
      ]);
      // Untrusted by default, no annotations: every tool needs approval.
      expect(source.info().every((i) => i.approval === "always")).toBe(true);
    } finally {
      await source.close();
      killPid(pid);
    }
  });
});
