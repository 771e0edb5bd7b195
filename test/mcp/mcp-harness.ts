/** Helpers for the MCP tests: real servers from node_modules/.bin, calls through the real registry. */
import { createServer } from "node:net";
import { resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "../../src/core/logger.ts";
import type { RunIdentity } from "../../src/core/run-identity.ts";
import { type McpServerConfig, parseMcpServers } from "../../src/mcp/mcp-config.ts";
import type { McpToolSource } from "../../src/mcp/mcp-tool-source.ts";
import type { ExecutionResult, ToolRegistry } from "../../src/tools/registry.ts";
import { testRegistry } from "../helpers/runtime.ts";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BIN = resolve(ROOT, "node_modules/.bin");
export const FAST_BACKOFF = { initialMs: 100, maxMs: 1_000 };

/** One server entry through the real parser (so defaults and validation are the production ones). */
export function serverConfig(
  entry: Record<string, unknown>,
  env: Record<string, string> = {},
): McpServerConfig {
  return parseMcpServers(JSON.stringify([entry]), "test.json", env)[0]!;
}

export function run(more: Partial<RunIdentity> = {}): RunIdentity {
  return { runId: "run_mcp", sessionKey: "T0001:C0OPS:1764420000.000100", userId: "U0USER1", ...more };
}

/** A registry holding the source's current tools: the runtime's repair, coercion, validation and caps apply. */
export function registryOf(source: McpToolSource): ToolRegistry {
  return testRegistry(source.tools()).registry;
}

let seq = 0;

/** A model's call as the runtime makes it: prepare (repair, coerce, validate), then execute. */
export async function call(
  registry: ToolRegistry,
  name: string,
  args: unknown,
  options: { signal?: AbortSignal; run?: RunIdentity } = {},
): Promise<ExecutionResult & { invalid?: string }> {
  const callId = `call_${++seq}`;
  const prepared = registry.prepare({ id: callId, name, arguments: JSON.stringify(args) });
  if (!prepared.ok) {
    return {
      ok: false,
      content: prepared.error,
      invalid: prepared.kind,
      attempts: 0,
      durationMs: 0,
      fullLength: 0,
    };
  }
  return registry.execute(prepared.tool, prepared.args, {
    run: options.run ?? run(),
    callId,
    signal: options.signal ?? new AbortController().signal,
    logger: silentLogger(),
  });
}

/** Polls `check` until it is truthy: a condition, not a fixed sleep. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  what: string,
  timeoutMs = 30_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(50);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const address = server.address();
  await new Promise((ok) => server.close(ok));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Kills a process by pid if it is still there (a finally's last resort; close() normally ends it). */
export function killPid(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

export function pidOf(source: McpToolSource, server: string): number | undefined {
  return source.health()[server]?.pid;
}
