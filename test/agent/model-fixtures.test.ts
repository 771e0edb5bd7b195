import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runTurn } from "../../src/agent/run/loop.ts";
import { silentLogger } from "../../src/core/logger.ts";
import {
  type Execution,
  fixtureTools,
  testModel,
  testRegistry,
  testRun,
  traceCollector,
} from "../helpers/runtime.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

interface FixtureCase {
  case: string;
  note: string;
  completion: Record<string, unknown>;
  expect: {
    calls?: Array<{ name: string; args: Record<string, unknown> }>;
    validation_error?: { name: string; path: string };
    unknown_tool?: string;
    error?: string;
  };
}

const cases: FixtureCase[] = readFileSync(
  new URL("../../../shared/fixtures/model/tool_calls.jsonl", import.meta.url),
  "utf8",
)
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

describe("real-world model outputs (shared/fixtures/model/tool_calls.jsonl) served over HTTP", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it("has the fixture cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(16);
  });

  it.each(cases.filter((c) => c.expect.calls))("$case: executes exactly the expected calls", async (fx) => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    server.enqueue({ completion: fx.completion }, answer("Done."));
    const result = await runTurn(
      { run: testRun, history: [], userMessage: "Open a ticket: VPN drops every 10 minutes, high priority" },
      { model: testModel(server), registry, logger: silentLogger() },
    );
    expect(result.status).toBe("completed");
    expect(executions).toEqual(fx.expect.calls);
    // Each call got exactly one result in the second request, and the model was asked twice.
    expect(server.requests).toHaveLength(2);
    const second = server.requests[1]!.body.messages;
    const assistant = second.find((m) => m.role === "assistant" && m.tool_calls)!;
    const ids = assistant.tool_calls!.map((c) => c.id);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(second.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(ids);
    // What we send back is valid JSON, whatever the model wrote.
    for (const c of assistant.tool_calls!) expect(() => JSON.parse(c.function.arguments)).not.toThrow();
  });

  it.each(cases.filter((c) => c.expect.validation_error))(
    "$case: the model gets a validation error naming the field",
    async (fx) => {
      const executions: Execution[] = [];
      const { registry } = testRegistry(fixtureTools(executions));
      const trace = traceCollector();
      server.enqueue({ completion: fx.completion }, answer("Sorry."));
      await runTurn(
        { run: testRun, history: [], userMessage: "Open a ticket" },
        { model: testModel(server), registry, logger: silentLogger(), onTraceEvent: trace.onTraceEvent },
      );
      expect(executions).toEqual([]);
      const toolMsg = server.requests[1]!.body.messages.find((m) => m.role === "tool")!;
      expect(toolMsg.content).toContain(`Invalid arguments for ${fx.expect.validation_error!.name}`);
      expect(toolMsg.content).toMatch(new RegExp(`- ${fx.expect.validation_error!.path}: `));
      expect(toolMsg.content).not.toMatch(/at .*\.ts:\d+/); // no stack
      expect(trace.of("tool.validation_error")).toHaveLength(1);
    },
  );

  it.each(cases.filter((c) => c.expect.unknown_tool))(
    "$case: the model is told which tools exist",
    async (fx) => {
      const executions: Execution[] = [];
      const { registry } = testRegistry(fixtureTools(executions));
      server.enqueue({ completion: fx.completion }, answer("Sorry."));
      await runTurn(
        { run: testRun, history: [], userMessage: "Open a ticket" },
        { model: testModel(server), registry, logger: silentLogger() },
      );
      expect(executions).toEqual([]);
      const toolMsg = server.requests[1]!.body.messages.find((m) => m.role === "tool")!;
      expect(toolMsg.content).toContain(`no tool named "${fx.expect.unknown_tool}"`);
      for (const name of ["create_ticket", "get_current_time", "search_tickets"])
        expect(toolMsg.content).toContain(name);
    },
  );

  it.each(cases.filter((c) => c.expect.error))(
    "$case: truncated arguments are not executed; the model is asked again",
    async (fx) => {
      const executions: Execution[] = [];
      const { registry } = testRegistry(fixtureTools(executions));
      server.enqueue({ completion: fx.completion }, answer("I opened the ticket."));
      const result = await runTurn(
        { run: testRun, history: [], userMessage: "Open a ticket" },
        { model: testModel(server), registry, logger: silentLogger() },
      );
      expect(executions).toEqual([]);
      expect(result.status).toBe("completed");
      expect(server.requests).toHaveLength(2);
      // The cut-off call never entered the history.
      expect(server.requests[1]!.body.messages.some((m) => m.tool_calls)).toBe(false);
    },
  );

  it.each(cases.filter((c) => c.expect.error))("$case twice: the user is told, nothing runs", async (fx) => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    server.enqueue({ completion: fx.completion }, { completion: fx.completion });
    const result = await runTurn(
      { run: testRun, history: [], userMessage: "Open a ticket" },
      { model: testModel(server), registry, logger: silentLogger() },
    );
    expect(executions).toEqual([]);
    expect(result.status).toBe("stopped");
    expect(result.stopReason).toBe("truncated");
    expect(result.answer).toBe(
      "I stopped because the model's output was cut off twice at its limit of 512 output tokens. Try a shorter request, or raise HERMES_MODEL_MAX_TOKENS.",
    );
  });
});
