import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type McpToolSource, startMcpServers } from "../../src/mcp/mcp-tool-source.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import type { ToolRegistry } from "../../src/tools/registry.ts";
import { type StartedProcess, startProcess } from "../helpers/child-process.ts";
import { type SlackSandbox, startSlackSandbox } from "../tools/tool-harness.ts";
import {
  BIN,
  call,
  FAST_BACKOFF,
  freePort,
  killPid,
  pidOf,
  registryOf,
  run,
  serverConfig,
  waitFor,
} from "./mcp-harness.ts";

const EVERYTHING = `${BIN}/mcp-server-everything`;
const PNG_SIGNATURE = "89504e470d0a1a0a";

let sandbox: SlackSandbox;
beforeAll(async () => {
  sandbox = await startSlackSandbox();
});
afterAll(async () => {
  await sandbox?.stop();
});

function startHttpEverything(port: number): Promise<StartedProcess> {
  const server = startProcess(EVERYTHING, ["streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
  });
  return server
    .waitForOutput(/listening on port/i, "server-everything over HTTP", 30_000)
    .then(() => server)
    .catch(async (err) => {
      await server.stop();
      throw err;
    });
}

describe.each(["stdio", "http"] as const)("server-everything over %s", (transport) => {
  let port = 0;
  let httpServer: StartedProcess | undefined;
  let source: McpToolSource | undefined;
  const pids = new Set<number>();
  let registry: ToolRegistry;

  const config = () =>
    serverConfig({
      name: "everything",
      trusted: true,
      ...(transport === "stdio"
        ? { transport: "stdio", command: EVERYTHING, args: ["stdio"] }
        : { transport: "http", url: `http://127.0.0.1:${port}/mcp` }),
      // It prints the whole environment: not a tool to offer.
      exclude: ["get-env"],
      tools: {
        "trigger-long-running-operation": { timeoutMs: 1_000 },
        echo: { maxResultChars: 300 },
      },
    });

  beforeAll(async () => {
    if (transport === "http") {
      port = await freePort();
      httpServer = await startHttpEverything(port);
    }
    source = await startMcpServers([config()], silentLogger(), {
      backoff: FAST_BACKOFF,
      slack: sandbox.slack,
    });
    const pid = pidOf(source, "everything");
    if (pid) pids.add(pid);
    registry = registryOf(source);
  });

  afterAll(async () => {
    await source?.close();
    for (const pid of pids) killPid(pid);
    await httpServer?.stop();
  });

  it("lists the server's tools as mcp_everything_*, with their approval rule", () => {
    expect(source!.health().everything).toMatchObject({ state: "ready" });
    const names = source!.tools().map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "mcp_everything_echo",
        "mcp_everything_get_sum",
        "mcp_everything_get_structured_content",
        "mcp_everything_get_tiny_image",
      ]),
    );
    expect(names).not.toContain("mcp_everything_get_env");
    const info = Object.fromEntries(source!.info().map((i) => [i.mcpName, i]));
    expect(info.echo).toMatchObject({ name: "mcp_everything_echo", approval: "never", level: "user" });
    // readOnlyHint: false → approval, even on a trusted server.
    expect(info["gzip-file-as-resource"]?.approval).toBe("always");
    // A task-only tool cannot be called by Hermes: listed as skipped, not offered.
    expect(source!.health().everything?.skipped.map((s) => s.tool)).toContain("simulate-research-query");
  });

  it("calls a tool through the registry: arguments are coerced and validated", async () => {
    expect(await call(registry, "mcp_everything_echo", { message: "hello" })).toMatchObject({
      ok: true,
      content: "Echo: hello",
    });
    const sum = await call(registry, "mcp_everything_get_sum", { a: "2", b: 3 });
    expect(sum.ok).toBe(true);
    expect(sum.content).toContain("5");
    const bad = await call(registry, "mcp_everything_get_sum", { a: "two", b: 3 });
    expect(bad).toMatchObject({ ok: false, invalid: "invalid_args" });
    expect(bad.content).toContain("a:");
  });

  it("caps a long result and keeps it whole for fetch_result", async () => {
    const long = "x".repeat(2_000);
    const result = await call(registry, "mcp_everything_echo", { message: long });
    expect(result.ok).toBe(true);
    expect(result.resultRef).toBeDefined();
    expect(result.content.length).toBeLessThanOrEqual(300);
    expect(result.fullLength).toBe(`Echo: ${long}`.length);
  });

  it("gives structured content as JSON, once (the server repeats it as text)", async () => {
    const result = await call(registry, "mcp_everything_get_structured_content", { location: "Chicago" });
    expect(result.ok).toBe(true);
    expect(result.content).not.toContain("Structured content:");
    expect(JSON.parse(result.content)).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
  });

  it("uploads an image result into the run's thread and tells the model so", async () => {
    const before = sandbox.threadFiles().length;
    const result = await call(
      registry,
      "mcp_everything_get_tiny_image",
      {},
      { run: run({ channelId: DEMO.ops, threadTs: sandbox.threadTs }) },
    );
    expect(result.ok).toBe(true);
    expect(result.content).toMatch(
      /\[image \(image\/png, \d+ bytes\) uploaded to the thread as everything-get-tiny-image-\d\.png/,
    );
    const files = sandbox.threadFiles();
    expect(files).toHaveLength(before + 1);
    expect(files.at(-1)!.bytes.subarray(0, 8).toString("hex")).toBe(PNG_SIGNATURE);
  });

  it("lists resource links", async () => {
    const result = await call(registry, "mcp_everything_get_resource_links", { count: 2 });
    expect(result.ok).toBe(true);
    expect(result.content).toMatch(/\[resource link: .* <demo:\/\/resource\/dynamic\/\w+\/1>/);
  });

  it("gives a tool's error result to the model as a tool error", async () => {
    const result = await call(registry, "mcp_everything_gzip_file_as_resource", {
      name: "x.gz",
      data: "ftp://example.com/file",
    });
    expect(result.ok).toBe(false);
    expect(result.content).toMatch(
      /^Error from mcp_everything_gzip_file_as_resource: .*Unsupported URL protocol/,
    );
  });

  it("stops a slow tool at its timeout, and the server stays usable", async () => {
    const started = Date.now();
    const result = await call(registry, "mcp_everything_trigger_long_running_operation", {
      duration: 10,
      steps: 10,
    });
    expect(result).toMatchObject({ ok: false, timedOut: true });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await call(registry, "mcp_everything_echo", { message: "still here" })).content).toBe(
      "Echo: still here",
    );
  });

  it("cancels the in-flight request when the turn is cancelled", async () => {
    const turn = new AbortController();
    const started = Date.now();
    const pending = call(
      registry,
      "mcp_everything_trigger_long_running_operation",
      { duration: 10, steps: 10 },
      { signal: turn.signal },
    );
    setTimeout(() => turn.abort(new Error("turn cancelled")), 200);
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(result.timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(900);
  });

  // Each transport has one failure of its own: defined only in its block (nothing is skipped).
  if (transport === "stdio")
    it("a server killed mid-call: the call fails cleanly, it is restarted, the next call works", async () => {
      const firstPid = pidOf(source!, "everything")!;
      expect(firstPid).toBeGreaterThan(0);
      const pending = call(registry, "mcp_everything_trigger_long_running_operation", {
        duration: 0.9,
        steps: 3,
      });
      process.kill(firstPid, "SIGKILL");
      const result = await pending;
      expect(result.ok).toBe(false);
      expect(result.content).toMatch(/MCP server "everything" (went away during the call|is unavailable)/);
      const secondPid = await waitFor((): number | undefined => {
        const pid = pidOf(source!, "everything");
        return pid && pid !== firstPid ? pid : undefined;
      }, "the server restarted");
      pids.add(secondPid);
      expect(source!.health().everything?.state).toBe("ready");
      // The registry built before the restart still holds working tools: they call through the connection.
      expect((await call(registry, "mcp_everything_echo", { message: "back" })).content).toBe("Echo: back");
    });

  if (transport === "http")
    it("a server that goes away answers unavailable at once, and is used again when it is back", async () => {
      await httpServer!.stop();
      const down = await call(registry, "mcp_everything_echo", { message: "anyone?" });
      expect(down.ok).toBe(false);
      expect(down.content).toMatch(/MCP server "everything" (is unreachable|is unavailable)/);
      await waitFor(() => source!.health().everything?.state !== "ready", "marked down");
      const quick = Date.now();
      const again = await call(registry, "mcp_everything_echo", { message: "anyone?" });
      expect(again.ok).toBe(false);
      expect(Date.now() - quick).toBeLessThan(1_000);
      httpServer = await startHttpEverything(port);
      await waitFor(() => source!.health().everything?.state === "ready", "reconnected");
      expect((await call(registry, "mcp_everything_echo", { message: "back" })).content).toBe("Echo: back");
    });
});

describe("secrets given to a server", () => {
  it("reach the server's environment but never the model: results are scrubbed", async () => {
    const secret = "mcp-test-secret-9f8e7d6c";
    const source = await startMcpServers(
      [
        serverConfig(
          {
            name: "envcheck",
            transport: "stdio",
            command: EVERYTHING,
            args: ["stdio"],
            include: ["get-env"],
            approval: "never",
            env: { WIKI_TOKEN: ["$", "{", "MCP_TEST_SECRET", "}"].join("") },
          },
          { MCP_TEST_SECRET: secret },
        ),
      ],
      silentLogger(),
      { backoff: FAST_BACKOFF },
    );
    const pid = pidOf(source, "envcheck");
    try {
      const result = await call(registryOf(source), "mcp_envcheck_get_env", {});
      expect(result.ok).toBe(true);
      expect(result.content).toContain('"WIKI_TOKEN": "[secret]"');
      expect(result.content).not.toContain(secret);
      // Only a minimal environment is inherited: Hermes' own settings do not reach the server.
      expect(result.content).not.toContain("HERMES_");
      expect(result.content).not.toContain("DATABASE_URL");
    } finally {
      await source.close();
      killPid(pid);
    }
  });
});
