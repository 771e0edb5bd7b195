import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { blocksText } from "../helpers/bolt-app.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { approvalIdOf, botReplies, cardsIn, messageText } from "../helpers/slack-thread.ts";

const BIN = resolve(import.meta.dirname, "../../node_modules/.bin");
const CHANGING = resolve(import.meta.dirname, "../mcp/fixtures/changing-server.ts");

/**
 * MCP servers wired into the whole product (HERMES_MCP_SERVERS → the registry → policy, approvals and
 * audit), driven through the real Bolt app, the Slack emulator and a scripted model: server-filesystem
 * rooted in a temp directory (trusted; write_file needs approval), a server whose tool list changes,
 * and one that cannot start.
 */
describe("MCP servers end to end (Bolt, Slack emulator, Postgres, real MCP servers)", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let dir: string;
  let root: string;

  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "hermes-mcp-e2e-")));
    root = join(dir, "root");
    await mkdir(root);
    await writeFile(join(root, "notes.txt"), "inside the root\n");
    const servers = join(dir, "mcp.yaml");
    await writeFile(
      servers,
      JSON.stringify([
        {
          name: "files",
          transport: "stdio",
          command: join(BIN, "mcp-server-filesystem"),
          args: [root],
          trusted: true,
          tools: { write_file: { approval: "always" } },
        },
        {
          name: "changing",
          transport: "stdio",
          command: process.execPath,
          args: [CHANGING],
          approval: "never",
        },
        { name: "broken", transport: "stdio", command: join(dir, "no-such-server"), level: "viewer" },
      ]),
    );
    await model.start();
    t = await startTestHermes({ model, env: { HERMES_MCP_SERVERS: servers } });
  }, 180_000);

  afterAll(async () => {
    await t?.stop();
    await model.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  async function ask(text: string) {
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: `<@U0HERMES> ${text}` });
    expect(d.status).toBe(200);
    return d.message!.ts;
  }
  const answered = (ts: string, text: string) =>
    waitFor(() => botReplies(t, "C0OPS", ts).find((m) => m.text === text), 30_000, `answer "${text}"`);
  const auditOf = async (tool: string) =>
    (await t.hermes.services.storage.audit.query({ tool, limit: 50 })).rows.reverse();

  it("a trusted server's read runs without approval; its result reaches the model", async () => {
    model.enqueue(
      toolCalls([{ name: "mcp_files_read_text_file", args: { path: join(root, "notes.txt") } }]),
      answer("It says: inside the root."),
    );
    const ts = await ask("what is in notes.txt?");
    await answered(ts, "It says: inside the root.");
    expect(cardsIn(t, "C0OPS", ts)).toEqual([]);
    const toolMessage = model.requests[1]!.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toContain("inside the root");
    const actions = (await auditOf("mcp_files_read_text_file")).map((r) => r.action);
    expect(actions).toEqual(["tool.requested", "tool.executed"]);
  });

  it("write_file is carded; approved, it writes exactly the approved content, once, and is audited", async () => {
    const target = join(root, "approved.txt");
    const content = "approved content\nline two\n";
    model.enqueue(toolCalls([{ name: "mcp_files_write_file", args: { path: target, content } }]));
    const ts = await ask("write approved.txt");
    const card = await waitFor(() => cardsIn(t, "C0OPS", ts)[0], 30_000, "approval card");
    expect(messageText(card)).toContain("`mcp_files_write_file`");
    expect(messageText(card)).toContain("approved content");
    expect(existsSync(target)).toBe(false); // nothing written before the decision
    model.enqueue(answer("Written."));
    const click = await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    expect(click.status).toBe(200);
    await answered(ts, "Written.");
    expect(await readFile(target, "utf8")).toBe(content);
    const rows = await auditOf("mcp_files_write_file");
    expect(rows.map((r) => r.action)).toEqual([
      "tool.requested",
      "tool.approval_requested",
      "tool.approved",
      "tool.executed",
    ]);
    expect(rows.every((r) => r.runId === rows[0]!.runId)).toBe(true);
    expect(rows.find((r) => r.action === "tool.approved")?.actorId).toBe("U0USER1");
  });

  it("a rejected write_file writes nothing", async () => {
    const target = join(root, "rejected.txt");
    model.enqueue(toolCalls([{ name: "mcp_files_write_file", args: { path: target, content: "no" } }]));
    const ts = await ask("write rejected.txt");
    const card = await waitFor(() => cardsIn(t, "C0OPS", ts)[0], 30_000, "approval card");
    model.enqueue(answer("Not written."));
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.reject",
      value: approvalIdOf(card),
      channel: "C0OPS",
      messageTs: card.ts,
    });
    await answered(ts, "Not written.");
    expect(existsSync(target)).toBe(false);
    const rows = (await auditOf("mcp_files_write_file")).filter(
      (r) => r.args && JSON.stringify(r.args).includes("rejected.txt"),
    );
    expect(rows.map((r) => r.action)).toContain("tool.rejected");
    expect(rows.map((r) => r.action)).not.toContain("tool.executed");
  });

  it("a tool a server adds after start is offered to the model at the next turn", async () => {
    model.enqueue(toolCalls([{ name: "mcp_changing_add_tool" }]), answer("Added."));
    const first = await ask("add a tool");
    await answered(first, "Added.");
    const offeredFirst = model.requests[0]!.body.tools!.map((x) => x.function.name);
    expect(offeredFirst).toContain("mcp_changing_add_tool");
    expect(offeredFirst).not.toContain("mcp_changing_added_1");
    await waitFor(
      () => t.hermes.services.runtime.registry.get("mcp_changing_added_1"),
      30_000,
      "the new tool",
    );

    model.reset();
    model.enqueue(toolCalls([{ name: "mcp_changing_added_1", args: { x: "7" } }]), answer("Got it."));
    const second = await ask("use the new tool");
    await answered(second, "Got it.");
    expect(model.requests[0]!.body.tools!.map((x) => x.function.name)).toContain("mcp_changing_added_1");
    const toolMessage = model.requests[1]!.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toContain("added_1 got 7");
  });

  it("/healthz shows each server's state and tool count only; a server that is down does not make it 503", async () => {
    const r = await fetch(`http://127.0.0.1:${t.hermes.port}/healthz`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { ok: boolean; mcp: Record<string, { state: string; tools: number }> };
    expect(body.ok).toBe(true);
    expect(body.mcp.files).toMatchObject({ state: "ready" });
    expect(body.mcp.files!.tools).toBeGreaterThan(5);
    expect(body.mcp.changing).toMatchObject({ state: "ready" });
    expect(["down", "connecting"]).toContain(body.mcp.broken!.state);
    // Unauthenticated: counts only, never the server's error text or pid.
    expect(Object.keys(body.mcp.broken!).sort()).toEqual(["state", "tools"]);
    expect(Object.keys(body.mcp.files!).sort()).toEqual(["state", "tools"]);
  });

  it("/hermes tools lists the MCP tools under their server, with level, approval and state", async () => {
    const d = await t.sender.slashCommand({ user: "U0USER1", channel: "C0OPS", text: "tools" });
    expect(d.status).toBe(200);
    const message = await waitFor(
      () => t.emulator.workspace.ephemeralMessages("C0OPS", "U0USER1").at(-1),
      30_000,
      "tools answer",
    );
    const text = blocksText(message.blocks);
    expect(text).toContain("*MCP server `files`* — ready");
    expect(text).toMatch(/• `mcp_files_read_text_file` — user · no approval — /);
    expect(text).toMatch(/• `mcp_files_write_file` — user · \*needs approval\* — /);
    expect(text).toMatch(/\*MCP server `broken`\* — :warning: (down|connecting)/);
    expect(text.indexOf("*MCP server `files`*")).toBeLessThan(text.indexOf("`mcp_files_read_text_file`"));
  });
});
