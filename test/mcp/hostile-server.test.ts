import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { startMcpServers } from "../../src/mcp/mcp-tool-source.ts";
import { testRegistry } from "../helpers/runtime.ts";
import { call, FAST_BACKOFF, killPid, pidOf, run, serverConfig, waitFor } from "./mcp-harness.ts";

const FIXTURE = resolve(import.meta.dirname, "fixtures/hostile-server.ts");

async function start(mode: string, name = "hostile", entry: Record<string, unknown> = {}) {
  const source = await startMcpServers(
    [serverConfig({ name, transport: "stdio", command: process.execPath, args: [FIXTURE, mode], ...entry })],
    silentLogger(),
    { backoff: FAST_BACKOFF },
  );
  return { source, pid: pidOf(source, name) };
}

describe("a hostile MCP server", () => {
  it("listing a tool twice: one registry tool per name, and a list the registry refuses stops nothing", async () => {
    const { source, pid } = await start("duplicate");
    try {
      const { registry } = testRegistry([]);
      source.follow((server, tools) => registry.replaceSource(`mcp:${server}`, tools));
      expect(registry.names().sort()).toEqual(["mcp_hostile_echo", "mcp_hostile_other"]);
      expect(source.health().hostile?.skipped.map((s) => s.tool)).toEqual(["echo"]);
      // An apply that throws (a registry clash) is logged and shown, never thrown at start-up.
      expect(() =>
        source.follow(() => {
          throw new Error("Two tools are named x");
        }),
      ).not.toThrow();
      expect(source.health().hostile?.rejected).toBe("Two tools are named x");
    } finally {
      await source.close();
      killPid(pid);
    }
  });

  it.each([
    ["endless", {}, 50, /more than 50 pages/],
    ["repeat", {}, 2, /same page cursor twice/],
    ["many", {}, 1_000, /more than 1000 tools/],
    // About 3 pages of 300 ms fit in the deadline; a busy machine may fit fewer.
    ["slow", { timeouts: { connectMs: 1_000 } }, expect.any(Number), /longer than 1000 ms/],
  ])(
    "tools/list paging (%s) is bounded: what was read is offered and health says why",
    async (mode, entry, tools, why) => {
      const started = Date.now();
      const { source, pid } = await start(mode, "hostile", entry);
      try {
        expect(Date.now() - started).toBeLessThan(5_000);
        const health = source.health().hostile!;
        expect(health).toMatchObject({ state: "ready", tools });
        expect(health.listCutShort).toMatch(why);
        expect(health.tools).toBeGreaterThan(0);
        expect(source.tools()).toHaveLength(health.tools);
      } finally {
        await source.close();
        killPid(pid);
      }
    },
  );

  it("a server's outputSchema is not run on its output: a catastrophic pattern cannot hold the event loop", async () => {
    const { source, pid } = await start("redos-output", "hostile", { approval: "never" });
    try {
      const { registry } = testRegistry([]);
      source.follow((server, tools) => registry.replaceSource(`mcp:${server}`, tools));
      // Ajv on `^(a+)+$` against 40 × "a" + "b" would not return for hours (the test would time out).
      const r = await call(registry, "mcp_hostile_echo", {});
      expect(r.ok).toBe(true);
      expect(r.content).toContain("aaaa");
    } finally {
      await source.close();
      killPid(pid);
    }
  });

  it("a storm of list_changed notifications costs a couple of listings, not one each, and changes nothing else", async () => {
    const { source, pid } = await start("storm", "hostile", { approval: "never" });
    try {
      const { registry } = testRegistry([]);
      let changes = 0;
      source.follow((server, tools) => {
        changes++;
        registry.replaceSource(`mcp:${server}`, tools);
      });
      const listsAtStart = Number((await call(registry, "mcp_hostile_lists", {})).content);
      expect(listsAtStart).toBe(1);
      await call(registry, "mcp_hostile_storm", {});
      // The storm has reached the client once a refresh it caused has been applied; then let any
      // follow-up refresh finish (it happens at most REFRESH_GAP_MS later).
      await waitFor(() => (changes >= 2 ? true : undefined), "a refresh after the storm");
      await waitFor(async () => {
        const a = Number((await call(registry, "mcp_hostile_lists", {})).content);
        await new Promise((r) => setTimeout(r, 700));
        const b = Number((await call(registry, "mcp_hostile_lists", {})).content);
        return a === b ? b : undefined;
      }, "the listings to settle");
      const lists = Number((await call(registry, "mcp_hostile_lists", {})).content);
      // 200 notifications: the refresh they started, plus at most one for all that came meanwhile
      // (and one more when the last notifications arrived just after that one started).
      expect(lists - listsAtStart).toBeGreaterThanOrEqual(1);
      expect(lists - listsAtStart).toBeLessThanOrEqual(3);
      expect(source.health().hostile?.state).toBe("ready");
      expect(registry.names().sort()).toEqual(["mcp_hostile_lists", "mcp_hostile_storm"]);
    } finally {
      await source.close();
      killPid(pid);
    }
  });

  it("a result that fails the protocol's schema is an invalid result that may have taken effect, not a lost server", async () => {
    const { source, pid } = await start("bad-result");
    try {
      const { registry } = testRegistry(source.tools());
      const prepared = registry.prepare({ id: "c1", name: "mcp_hostile_echo", arguments: "{}" });
      if (!prepared.ok) throw new Error(prepared.error);
      const result = await registry.execute(prepared.tool, prepared.args, {
        run: run(),
        callId: "c1",
        signal: new AbortController().signal,
        logger: silentLogger(),
      });
      expect(result.ok).toBe(false);
      expect(result.content).toMatch(/answered with an invalid result .*the call may have taken effect/);
      expect(result.content).not.toMatch(/unreachable|restarted/);
      expect(source.health().hostile).toMatchObject({ state: "ready", pid });
    } finally {
      await source.close();
      killPid(pid);
    }
  });
});
