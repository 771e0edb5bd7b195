import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { startMcpServers } from "../../src/mcp/mcp-tool-source.ts";
import { MAX_MESSAGE_BYTES } from "../../src/mcp/result-limits.ts";
import { startProcess } from "../helpers/child-process.ts";
import { startTestHermes, type TestHermes } from "../helpers/hermes-harness.ts";
import { meterLoopTurns, probeHealthz } from "../helpers/loop-turns.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";
import {
  call,
  FAST_BACKOFF,
  freePort,
  killPid,
  pidOf,
  registryOf,
  serverConfig,
  waitFor,
} from "./mcp-harness.ts";

const FIXTURE = resolve(import.meta.dirname, "fixtures/huge-result-server.ts");

/** The event loop may be held by our own work for at most this long in one turn of the loop. */
const STALL_MS = 100;

describe("a huge MCP result (a real stdio server)", () => {
  it("200,000 content blocks: no turn of the loop held, a capped result that says what was left out", {
    timeout: 120_000,
  }, async () => {
    const source = await startMcpServers(
      [serverConfig({ name: "huge", transport: "stdio", command: process.execPath, args: [FIXTURE] })],
      silentLogger(),
      { backoff: FAST_BACKOFF },
    );
    const pid = pidOf(source, "huge");
    try {
      await waitFor(() => source.health().huge?.state === "ready", "the server ready");
      const registry = registryOf(source);
      const m = await meterLoopTurns(() => call(registry, "mcp_huge_blocks", { count: 200_000 }));
      console.log(`200,000 blocks: ${m.turns.length} loop turns, longest held ${m.longest.toFixed(1)} ms`);
      expect(m.turns.filter((t) => Math.min(t.ms, t.cpu) >= STALL_MS)).toEqual([]);
      const result = m.result;
      expect(result.ok).toBe(true);
      expect(result.content).toContain("line 0\n\nline 1");
      // Rendered up to the cap, with a note of how much was left out.
      expect(result.content).toMatch(
        /\[199000 of 200000 content blocks left out: one result shows at most 1000 blocks/,
      );
      // The registry's cap still applies: the model reads a part, the rendered whole is kept for fetch_result.
      expect(result.resultRef).toBeDefined();
      expect(result.content).toContain(`fetch_result ref="${result.resultRef}"`);
      expect(result.content.length).toBeLessThan(5_000);
      // The server is still there: a small call answers whole.
      const small = await call(registry, "mcp_huge_blocks", { count: 3 });
      expect(small.content).toBe("line 0\n\nline 1\n\nline 2");

      // One message over the byte cap: the SDK drops the connection before parsing it; the call fails
      // with a sentence saying why, and the restarted server answers again.
      const big = await call(registry, "mcp_huge_big_text", { chars: MAX_MESSAGE_BYTES + 1 });
      expect(big.ok).toBe(false);
      expect(big.content).toMatch(/answered with more than 8 MB in one message, more than Hermes reads/);
      await waitFor(() => source.health().huge?.state === "ready", "the server restarted", 60_000);
      const again = await call(registry, "mcp_huge_blocks", { count: 1 });
      expect(again.content).toBe("line 0");
    } finally {
      await source.close();
      killPid(pid);
    }
  });
});

describe.each(["sse", "json"] as const)("a huge MCP result over Streamable HTTP (%s answers)", (mode) => {
  it("over the byte cap: the call fails saying why; 200,000 blocks: a capped result, no turn of the loop held", {
    timeout: 120_000,
  }, async () => {
    const port = await freePort();
    const server = startProcess(
      process.execPath,
      [FIXTURE, "http", String(port), ...(mode === "json" ? ["json"] : [])],
      {
        env: process.env,
      },
    );
    let source: Awaited<ReturnType<typeof startMcpServers>> | undefined;
    try {
      await server.waitForOutput(/listening on port/, "the HTTP server", 30_000);
      source = await startMcpServers(
        [serverConfig({ name: "huge", transport: "http", url: `http://127.0.0.1:${port}/mcp` })],
        silentLogger(),
        { backoff: FAST_BACKOFF },
      );
      const mcp = source;
      await waitFor(() => mcp.health().huge?.state === "ready", "the server ready");
      const registry = registryOf(mcp);
      const big = await call(registry, "mcp_huge_big_text", { chars: MAX_MESSAGE_BYTES + 1 });
      expect(big.ok).toBe(false);
      expect(big.content).toMatch(/answered with more than 8 MB in one message, more than Hermes reads/);
      await waitFor(() => mcp.health().huge?.state === "ready", "the server reconnected", 60_000);
      const m = await meterLoopTurns(() => call(registry, "mcp_huge_blocks", { count: 200_000 }));
      console.log(
        `200,000 blocks over HTTP (${mode}): ${m.turns.length} loop turns, longest held ${m.longest.toFixed(1)} ms`,
      );
      expect(m.turns.filter((t) => Math.min(t.ms, t.cpu) >= STALL_MS)).toEqual([]);
      expect(m.result.content).toMatch(/\[199000 of 200000 content blocks left out/);
      expect(m.result.resultRef).toBeDefined();
    } finally {
      await source?.close();
      await server.stop();
    }
  });
});

describe("a huge MCP result in the running app", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "hermes-mcp-huge-"));
    const servers = join(dir, "mcp.json");
    await writeFile(
      servers,
      JSON.stringify([
        { name: "huge", transport: "stdio", command: process.execPath, args: [FIXTURE], approval: "never" },
      ]),
    );
    await model.start();
    t = await startTestHermes({ model, env: { HERMES_MCP_SERVERS: servers } });
    // A first turn loads what a process loads once (the tokenizer, the modules of a turn), so the
    // measured turn is the result's cost alone.
    const app = t;
    model.enqueue(answer("Hello."));
    const d = await app.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> hi" });
    await waitFor(
      () => botReplies(app, "C0OPS", d.message!.ts).find((r) => r.text === "Hello."),
      "the first answer",
      60_000,
    );
    model.reset();
  }, 180_000);
  afterAll(async () => {
    const pid = t ? t.hermes.services.mcp?.health().huge?.pid : undefined;
    await t?.stop();
    killPid(pid);
    await model.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("a call answered with 200,000 blocks: /healthz answers, no turn of the loop held, the model reads a capped result", {
    timeout: 180_000,
  }, async () => {
    const app = t!;
    await waitFor(
      () => app.hermes.services.mcp?.health().huge?.state === "ready",
      "the server ready",
      60_000,
    );
    model.enqueue(toolCalls([{ name: "mcp_huge_blocks", args: { count: 200_000 } }]), answer("Read it."));
    const probes = probeHealthz(app.hermes.port);
    const m = await meterLoopTurns(async () => {
      try {
        const d = await app.sender.appMention({
          user: "U0USER1",
          channel: "C0OPS",
          text: "<@U0HERMES> read it all",
        });
        return await waitFor(
          () => botReplies(app, "C0OPS", d.message!.ts).find((r) => r.text === "Read it."),
          "the answer",
          120_000,
        );
      } finally {
        await probes.stop();
      }
    });
    const statuses = await probes.stop();
    console.log(
      `200,000 blocks in the app: ${m.turns.length} loop turns, longest held ${m.longest.toFixed(1)} ms; ${statuses.length} /healthz probes`,
    );
    expect(m.turns.filter((p) => Math.min(p.ms, p.cpu) >= STALL_MS)).toEqual([]);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const toolMessage = model.requests[1]!.body.messages.find((msg) => msg.role === "tool");
    expect(toolMessage?.content).toContain("line 0");
    expect(toolMessage?.content).toContain("fetch_result ref=");
    expect(toolMessage!.content!.length).toBeLessThan(5_000);
  });
});
