import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandModel } from "../../src/agent/command/command-model.ts";
import type { ChatModel } from "../../src/agent/model/chat-model.ts";
import { createOpenAIModel } from "../../src/agent/model/openai-model.ts";
import { runAgentTurn } from "../../src/cli/agent-turn.ts";
import { type AgentWorkspace, openAgentWorkspace } from "../../src/cli/agent-workspace.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { PermissionLevel } from "../../src/core/permission-levels.ts";
import { DEMO } from "../../src/sandbox/seed-demo-workspace.ts";
import { parseHermesCommand } from "../../src/slack/commands/parse-hermes-command.ts";
import { sql } from "../../src/store/drizzle.ts";
import { PROCESS_TEST_TIMEOUT_MS } from "../helpers/child-process.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { type FrontDoorPrompt, frontDoorPrompts } from "./front-door-prompts.ts";

/**
 * The tool calls that carry out each task a newcomer is shown, as a model would make them. A new
 * prompt fails below until it is added here with calls of a registered tool its level may use, so a
 * prompt no tool can carry out (an audit question, say: no tool reads the audit log) cannot ship.
 */
const BACKED_BY: Record<string, Array<{ name: string; args: Record<string, unknown> }>> = {
  "open a ticket for the VPN outage and tell Wang Lei I'll join at three": [
    { name: "create_ticket", args: { title: "VPN outage", priority: "high" } },
    { name: "send_message", args: { to: "Wang Lei", text: "I'll join the VPN outage call at three." } },
  ],
  "What time is it in Berlin?": [{ name: "get_current_time", args: { timezone: "Europe/Berlin" } }],
  "open a high-priority ticket: VPN is down": [
    { name: "create_ticket", args: { title: "VPN is down", priority: "high" } },
  ],
  "Help me open a ticket. Ask me what it is about and how urgent it is.": [
    { name: "create_ticket", args: { title: "Projector in room 2 flickers", priority: "low" } },
  ],
  "Give me a report of this week's tickets.": [{ name: "ticket_report", args: { period: "7d" } }],
  "Give me a report of the last 30 days' tickets by assignee.": [
    { name: "ticket_report", args: { period: "30d", group_by: "assignee" } },
  ],
  "Help me find a ticket. Ask me what it is about.": [{ name: "search_tickets", args: { query: "VPN" } }],
};

/** Who asks, by the level a prompt is offered to. */
const ASKER: Record<PermissionLevel, string> = { viewer: DEMO.wangLei, user: DEMO.user, admin: DEMO.admin };

describe("every prompt the assistant, the sandbox page, /hermes help and the README suggest is backed", () => {
  const server = new ScriptedModelServer();
  let ws: AgentWorkspace;
  let scripted: ChatModel;
  let prompts: FrontDoorPrompt[];
  const limits = { maxSteps: 6, turnTimeoutMs: 60_000 };

  beforeAll(async () => {
    prompts = await frontDoorPrompts();
    await server.start();
    const { model } = loadConfig({ OPENAI_BASE_URL: server.baseURL, HERMES_MODEL: "scripted" });
    if (!model) throw new Error("the scripted model was not configured");
    scripted = createOpenAIModel(model);
    ws = await openAgentWorkspace({
      config: loadConfig({}),
      rawEnv: {},
      logger: silentLogger(),
      model: scripted,
      redact: (v) => v,
    });
    await ws.users.upsert({ id: DEMO.wangLei, level: "viewer" });
  }, PROCESS_TEST_TIMEOUT_MS);
  afterAll(async () => {
    await ws?.close();
    await server.stop();
  });

  /** The tools a run executed, from its audit rows. */
  async function executed(runId: string): Promise<string[]> {
    const rows = await ws.db.execute<{ tool: string }>(
      sql`select tool from audit_log where run_id = ${runId} and action = 'tool.executed' order by id`,
    );
    return rows.rows.map((r) => r.tool);
  }

  it("collects prompts from every place they are written", () => {
    const sources = new Set(prompts.map((p) => p.source.split(" ")[0]));
    expect([...sources]).toEqual(expect.arrayContaining(["assistant", "/hermes", "sandbox", "README.md"]));
    for (const kind of ["task", "command", "slash"] as const)
      expect(prompts.some((p) => p.kind === kind)).toBe(true);
  });

  it("each task is carried out by registered tools its asker may use, through the model", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    const tasks = prompts.filter((p) => p.kind === "task");
    const unbacked = tasks.filter((p) => !BACKED_BY[p.text]).map((p) => `${p.source}: "${p.text}"`);
    expect(unbacked, "prompts with no tool calls in BACKED_BY").toEqual([]);
    const stale = Object.keys(BACKED_BY).filter((text) => !tasks.some((p) => p.text === text));
    expect(stale, "BACKED_BY entries no prompt uses any more").toEqual([]);

    const registered = new Set(ws.registry.names());
    for (const task of tasks) {
      const calls = BACKED_BY[task.text] ?? [];
      for (const call of calls) expect(registered, `${task.source}: ${call.name}`).toContain(call.name);
      server.reset();
      server.enqueue(...calls.map((c) => toolCalls([c])), answer("Done."));
      const result = await runAgentTurn(ws, {
        task: task.text,
        userId: ASKER[task.level ?? "user"],
        approve: true,
        model: scripted,
        limits,
        logger: silentLogger(),
        print: () => undefined,
      });
      expect(result.status, `${task.source}: ${result.answer}`).toBe("completed");
      expect(await executed(result.runId), task.source).toEqual(calls.map((c) => c.name));
    }
  });

  it("each command runs as written in command mode: its tool executes, help lists the tools", {
    timeout: PROCESS_TEST_TIMEOUT_MS,
  }, async () => {
    for (const command of prompts.filter((p) => p.kind === "command")) {
      const result = await runAgentTurn(ws, {
        task: command.text,
        userId: DEMO.user,
        approve: true,
        model: createCommandModel(),
        limits,
        logger: silentLogger(),
        print: () => undefined,
      });
      expect(result.status, `${command.source}: ${command.text}: ${result.answer}`).toBe("completed");
      const tool = /^run ([a-z_]+)/.exec(command.text)?.[1];
      if (tool) expect(await executed(result.runId), `${command.source}: ${command.text}`).toEqual([tool]);
      else expect(result.answer, command.text).toContain("create_ticket");
    }
  });

  it("each /hermes subcommand is one the command answers, and each thread word is one the thread knows", () => {
    for (const slash of prompts.filter((p) => p.kind === "slash")) {
      const rest = slash.text.replace(/^\/hermes\s*/, "");
      expect(parseHermesCommand(rest).kind, `${slash.source}: ${slash.text}`).not.toBe("unknown");
    }
    const listeners = readFileSync(join(import.meta.dirname, "../../src/slack/event-listeners.ts"), "utf8");
    for (const word of prompts.filter((p) => p.kind === "word"))
      expect(listeners, `${word.source}: ${word.text}`).toMatch(new RegExp(`\\b${word.text}\\b`));
  });
});
