import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/core/logger.ts";
import { type McpToolSource, startMcpServers } from "../../../src/mcp/mcp-tool-source.ts";
import { DEMO } from "../../../src/sandbox/seed-demo-workspace.ts";
import { registerHermesCommand } from "../../../src/slack/commands/hermes-command.ts";
import {
  type BoltHarness,
  blocksText,
  eventually,
  failedCalls,
  harnessTools,
  startBoltHarness,
} from "../../helpers/bolt-app.ts";
import { BIN, FAST_BACKOFF, killPid, pidOf, serverConfig } from "../../mcp/mcp-harness.ts";

/**
 * `/hermes tools` with MCP servers: their tools under each server's heading with level and approval
 * rule, the server's state (and why it is down), through the real Bolt app and the Slack emulator.
 */
describe("/hermes tools with MCP servers", () => {
  let h: BoltHarness;
  let mcp: McpToolSource | undefined;
  let root: string;
  let pid: number | undefined;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "hermes-mcp-tools-")));
    await writeFile(join(root, "notes.txt"), "hi\n");
    mcp = await startMcpServers(
      [
        serverConfig({
          name: "files",
          transport: "stdio",
          command: `${BIN}/mcp-server-filesystem`,
          args: [root],
          trusted: true,
          include: ["read_text_file", "write_file", "list_directory"],
          tools: { list_directory: { level: "admin" } },
        }),
        serverConfig({ name: "tracker", transport: "stdio", command: join(root, "no-such-server") }),
      ],
      silentLogger(),
      { backoff: FAST_BACKOFF },
    );
    pid = pidOf(mcp, "files");
    const source = mcp;
    h = await startBoltHarness(
      (app, services, schedules) =>
        registerHermesCommand(app, { ...services, mcp: source }, { schedules, onSchedulesChanged: () => {} }),
      { tools: [...harnessTools(), ...source.tools()] },
    );
  });

  afterAll(async () => {
    await h?.stop();
    await mcp?.close();
    killPid(pid);
    await rm(root, { recursive: true, force: true });
  });

  async function tools(user: string): Promise<string> {
    const before = h.emulator.workspace.ephemeralMessages(DEMO.general, user).length;
    const delivery = await h.sender.slashCommand({ user, channel: DEMO.general, text: "tools" });
    expect(delivery.status).toBe(200);
    const message = await eventually(
      () => h.emulator.workspace.ephemeralMessages(DEMO.general, user)[before],
    );
    expect(failedCalls(h.emulator)).toEqual([]);
    return blocksText(message.blocks);
  }

  it("lists each server's tools under it, with level and approval rule, and the server's state", async () => {
    const text = await tools(DEMO.user);
    // 3 built-ins the user may use, 2 of the server's 3 (list_directory is admin).
    expect(text).toContain("(5, your level: *user*)");
    const lines = text.split("\n");
    const heading = lines.indexOf("*MCP server `files`* — ready");
    expect(heading).toBeGreaterThan(lines.findIndex((l) => l.includes("`search_tickets`")));
    expect(lines[heading + 1]).toMatch(/^• `mcp_files_read_text_file` — user · no approval — Read/);
    expect(lines[heading + 2]).toMatch(/^• `mcp_files_write_file` — user · \*needs approval\* — /);
    // The description is the server's own, without the "[MCP server files]" label the model sees.
    expect(text).not.toContain("[MCP server files]");
    expect(text).not.toContain("mcp_files_list_directory");
    expect(text).toMatch(
      /\*MCP server `tracker`\* — :warning: (down \(.+\)|connecting): its tools answer "unavailable" until it is back — none you may use/,
    );
  });

  it("an admin also sees the admin-level MCP tool", async () => {
    const text = await tools(DEMO.admin);
    expect(text).toContain("(7, your level: *admin*)");
    expect(text).toContain("• `mcp_files_list_directory` — admin · no approval");
  });
});
