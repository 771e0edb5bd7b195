import { mkdtemp, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type McpToolSource, startMcpServers } from "../../src/mcp/mcp-tool-source.ts";
import type { Tool } from "../../src/tools/define-tool.ts";
import type { ToolRegistry } from "../../src/tools/registry.ts";
import { BIN, call, FAST_BACKOFF, killPid, pidOf, registryOf, serverConfig } from "./mcp-harness.ts";

const FILESYSTEM = `${BIN}/mcp-server-filesystem`;

describe("server-filesystem rooted in a temp directory", () => {
  let root: string;
  let outside: string;
  let source: McpToolSource | undefined;
  let registry: ToolRegistry;
  const pids: number[] = [];

  const tool = (name: string): Tool => {
    const found = source!.tools().find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}`);
    return found;
  };

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "hermes-mcp-fs-")));
    outside = await realpath(await mkdtemp(join(tmpdir(), "hermes-mcp-outside-")));
    await writeFile(join(root, "notes.txt"), "inside the root\n");
    await writeFile(join(outside, "secret.txt"), "outside the root\n");
    const server = (name: string, more: Record<string, unknown>) =>
      serverConfig({ name, transport: "stdio", command: FILESYSTEM, args: [root], ...more });
    source = await startMcpServers(
      [
        server("files", { trusted: true }),
        server("untrusted", { include: ["read_text_file", "write_file"] }),
        server("override", {
          include: ["read_text_file", "list_directory"],
          tools: { read_text_file: { approval: "never", level: "viewer" } },
          level: "admin",
        }),
      ],
      silentLogger(),
      { backoff: FAST_BACKOFF },
    );
    for (const name of ["files", "untrusted", "override"]) {
      const pid = pidOf(source, name);
      if (pid) pids.push(pid);
    }
    registry = registryOf(source);
  });

  afterAll(async () => {
    await source?.close();
    for (const pid of pids) killPid(pid);
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("trusted: reading needs no approval, writing does (by annotations)", () => {
    expect(source!.health().files?.state).toBe("ready");
    expect(tool("mcp_files_read_text_file")).toMatchObject({ approval: "never", level: "user" });
    expect(tool("mcp_files_list_directory").approval).toBe("never");
    expect(tool("mcp_files_write_file")).toMatchObject({ approval: "always", dangerous: true });
    expect(tool("mcp_files_edit_file").approval).toBe("always");
    expect(tool("mcp_files_create_directory").approval).toBe("always");
  });

  it("untrusted: the server's readOnlyHint does not relax approval; include limits the tools", () => {
    expect(tool("mcp_untrusted_read_text_file").approval).toBe("always");
    expect(tool("mcp_untrusted_write_file").approval).toBe("always");
    expect(source!.tools().filter((t) => t.name.startsWith("mcp_untrusted_"))).toHaveLength(2);
  });

  it("per-tool overrides win over the server's level and approval", () => {
    expect(tool("mcp_override_read_text_file")).toMatchObject({ approval: "never", level: "viewer" });
    expect(tool("mcp_override_list_directory")).toMatchObject({ approval: "always", level: "admin" });
  });

  it("reads a file inside the root", async () => {
    const result = await call(registry, "mcp_files_read_text_file", { path: join(root, "notes.txt") });
    expect(result).toMatchObject({ ok: true, content: "inside the root\n" });
  });

  it("writes exactly the given content", async () => {
    const content = "line one\nline two: ünïcödé\n";
    const result = await call(registry, "mcp_files_write_file", { path: join(root, "new.txt"), content });
    expect(result.ok).toBe(true);
    expect(await readFile(join(root, "new.txt"), "utf8")).toBe(content);
  });

  it("a path outside the root is refused by the server, and the refusal is what the model reads", async () => {
    const read = await call(registry, "mcp_files_read_text_file", { path: join(outside, "secret.txt") });
    expect(read.ok).toBe(false);
    expect(read.content).toMatch(/^Error from mcp_files_read_text_file: .*access denied/i);
    expect(read.content).not.toContain("outside the root");
    const write = await call(registry, "mcp_files_write_file", {
      path: join(outside, "x.txt"),
      content: "no",
    });
    expect(write.ok).toBe(false);
    await expect(stat(join(outside, "x.txt"))).rejects.toThrow(/ENOENT/);
  });
});
