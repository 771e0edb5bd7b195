import { describe, expect, it } from "vitest";
import { parseKeyValues } from "../../../src/agent/command/command-args.ts";
import { createCommandModel, NO_MODEL_HELP, parseCommand } from "../../../src/agent/command/command-model.ts";
import { resumeRun, runTurn } from "../../../src/agent/run/loop.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { type Execution, fixtureTools, testRegistry, testRun } from "../../helpers/runtime.ts";

describe("command mode", () => {
  it("parses run commands with key=value pairs or JSON", () => {
    expect(parseCommand('<@U0HERMES> run create_ticket title="Printer on 3F jammed" priority=high')).toEqual({
      kind: "run",
      tool: "create_ticket",
      args: JSON.stringify({ title: "Printer on 3F jammed", priority: "high" }),
    });
    expect(parseCommand('run search_tickets {"query": "VPN"}')).toEqual({
      kind: "run",
      tool: "search_tickets",
      args: '{"query": "VPN"}',
    });
    expect(parseCommand("help")).toEqual({ kind: "help" });
    expect(parseCommand("please open a ticket")).toBeUndefined();
    expect(parseKeyValues(`a=1 b='it\\'s' c=“中文 标题”`)).toEqual({
      ok: true,
      values: { a: "1", b: "it's", c: "中文 标题" },
    });
  });

  it("runs the tool through the runtime (validation, coercion) and answers with its result", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const r = await runTurn(
      {
        run: testRun,
        history: [],
        userMessage: 'run create_ticket title="Printer on 3F jammed" priority=HIGH',
      },
      { model: createCommandModel(), registry, logger: silentLogger() },
    );
    expect(executions).toEqual([
      { name: "create_ticket", args: { title: "Printer on 3F jammed", priority: "high" } },
    ]);
    expect(r.status).toBe("completed");
    // A result without a sentence of its own reads as its fields, never as JSON.
    expect(r.answer).toBe("`create_ticket` returned:\nId: 42\nTitle: Printer on 3F jammed\nPriority: high");
  });

  it("an unquoted message of several words reaches the tool whole; unreadable arguments run nothing", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const deps = { model: createCommandModel(), registry, logger: silentLogger() };
    const r = await runTurn(
      {
        run: testRun,
        history: [],
        userMessage: "<@U0HERMES> run create_ticket title=Printer on 3F jammed again priority=high",
      },
      deps,
    );
    expect(executions).toEqual([
      { name: "create_ticket", args: { title: "Printer on 3F jammed again", priority: "high" } },
    ]);
    expect(r.status).toBe("completed");

    const typo = await runTurn(
      { run: testRun, history: [], userMessage: "run create_ticket title=Printer jammed prio=high" },
      deps,
    );
    expect(executions).toHaveLength(1);
    expect(typo.answer).toBe(
      'I did not run `create_ticket`: `create_ticket` has no argument `prio`: its arguments are `title`, `description`, `priority`. If `prio=` is part of the value of `title`, put that value in quotes: `title="…"`.\nTry: `run create_ticket title=…`',
    );
    const unclosed = await runTurn(
      { run: testRun, history: [], userMessage: 'run create_ticket title="Printer jammed' },
      deps,
    );
    expect(unclosed.answer).toContain("is never closed");
    expect(executions).toHaveLength(1);
  });

  it("validation errors reach the user; help lists allowed tools with their arguments", async () => {
    const { registry } = testRegistry(fixtureTools([]));
    const bad = await runTurn(
      { run: testRun, history: [], userMessage: "run create_ticket priority=high" },
      { model: createCommandModel(), registry, logger: silentLogger() },
    );
    // Said to the person who typed it, not the model's "Fix these fields and call … again".
    expect(bad.answer).toBe("`create_ticket` needs a `title`.\nTry: `run create_ticket title=…`");
    const help = await runTurn(
      { run: testRun, history: [], userMessage: "help" },
      { model: createCommandModel(), registry, logger: silentLogger(), toolNames: ["search_tickets"] },
    );
    expect(help.answer).toContain(
      "run search_tickets [query=<string>] [status=<open|in_progress|closed>] [limit=<integer>]",
    );
    expect(help.answer).not.toContain("create_ticket");
  });

  it("anything else explains how to configure a model", async () => {
    const { registry } = testRegistry(fixtureTools([]));
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hello there" },
      { model: createCommandModel(), registry, logger: silentLogger() },
    );
    expect(r.answer).toBe(NO_MODEL_HELP);
  });

  it("takes the same approval path: pauses, and the result answers after approval", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const deps = {
      model: createCommandModel(),
      registry,
      logger: silentLogger(),
      policy: () => ({ action: "needs_approval" as const }),
    };
    const paused = await runTurn(
      { run: testRun, history: [], userMessage: "run create_ticket title=VPN" },
      deps,
    );
    expect(paused.status).toBe("paused");
    expect(executions).toHaveLength(0);
    const callId = paused.snapshot!.pending[0]!.callId;
    const done = await resumeRun(paused.snapshot!, { [callId]: { status: "approved", by: "U0ADMIN" } }, deps);
    expect(done.status).toBe("completed");
    expect(executions).toHaveLength(1);
    expect(done.answer).toContain("`create_ticket` returned:\nId: 42");
  });
});
