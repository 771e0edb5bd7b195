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
import { answer, assistantMessage, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

/**
 * What the loop does with what the adapter recovered from text: reasoning kept out of history and
 * the answer, calls at the output limit, calls nobody can read, and the fallback model.
 */
describe("text calls, reasoning and the fallback model through the loop (real SDK over HTTP)", () => {
  const primary = new ScriptedModelServer();
  const fallback = new ScriptedModelServer();
  beforeAll(async () => {
    await primary.start();
    await fallback.start();
  });
  afterAll(async () => {
    await primary.stop();
    await fallback.stop();
  });
  beforeEach(() => {
    primary.reset();
    fallback.reset();
  });

  function deps(executions: Execution[], extra: Record<string, unknown> = {}) {
    const { registry } = testRegistry(fixtureTools(executions));
    const trace = traceCollector();
    return {
      trace,
      deps: {
        model: testModel(primary),
        registry,
        logger: silentLogger(),
        onTraceEvent: trace.onTraceEvent,
        ...extra,
      },
    };
  }

  it("reasoning stays out of the answer and of the history sent back; it goes to the trace", async () => {
    const executions: Execution[] = [];
    const { deps: d, trace } = deps(executions);
    primary.enqueue(
      assistantMessage(
        {
          content:
            '<think>SECRET-PLAN the user wants a ticket</think><tool_call>{"name": "create_ticket", "arguments": {"title": "VPN"}}</tool_call>',
          reasoning_content: "FIELD-REASONING considering priorities",
        },
        "stop",
      ),
      assistantMessage({ content: "<think>SECOND-THOUGHT</think>Opened the ticket.", reasoning: "more" }),
    );
    const result = await runTurn({ run: testRun, history: [], userMessage: "ticket for VPN" }, d);
    expect(result.status).toBe("completed");
    expect(result.answer).toBe("Opened the ticket.");
    expect(executions).toEqual([{ name: "create_ticket", args: { title: "VPN" } }]);
    const sentBack = JSON.stringify(primary.requests[1]!.body.messages);
    for (const s of ["SECRET-PLAN", "FIELD-REASONING", "<think>", "<tool_call>"])
      expect(sentBack).not.toContain(s);
    expect(JSON.stringify(result.messages)).not.toMatch(/SECRET-PLAN|FIELD-REASONING|SECOND-THOUGHT/);
    const reasoning = trace.of("model.reasoning");
    expect(reasoning.map((e) => e.text)).toEqual([
      "FIELD-REASONING considering priorities\n\nSECRET-PLAN the user wants a ticket",
      "more\n\nSECOND-THOUGHT",
    ]);
    expect(trace.of("model.format")[0]).toMatchObject({ format: "hermes_json", from: "content" });
  });

  it("a call written only inside the reasoning is still a call", async () => {
    const executions: Execution[] = [];
    const { deps: d, trace } = deps(executions);
    primary.enqueue(
      assistantMessage({
        content: "",
        reasoning_content:
          'I will check the time.\n<tool_call>{"name": "get_current_time", "arguments": {}}</tool_call>',
      }),
      answer("It is noon."),
    );
    const result = await runTurn({ run: testRun, history: [], userMessage: "time?" }, d);
    expect(result.answer).toBe("It is noon.");
    expect(executions).toEqual([{ name: "get_current_time", args: {} }]);
    expect(trace.of("model.format")[0]).toMatchObject({ format: "hermes_json", from: "reasoning" });
  });

  it("a namespaced native call runs as the tool, and history keeps the resolved name", async () => {
    const executions: Execution[] = [];
    const { deps: d } = deps(executions);
    primary.enqueue(
      toolCalls([{ name: "functions.create_ticket:0", args: { title: "Printer" } }]),
      answer("Done."),
    );
    await runTurn({ run: testRun, history: [], userMessage: "printer ticket" }, d);
    expect(executions).toEqual([{ name: "create_ticket", args: { title: "Printer" } }]);
    const assistant = primary.requests[1]!.body.messages.find((m) => m.tool_calls)!;
    expect(assistant.tool_calls!.map((c) => c.function.name)).toEqual(["create_ticket"]);
  });

  it("an unclosed <tool_call> at finish_reason length runs when its JSON is complete", async () => {
    const executions: Execution[] = [];
    const { deps: d } = deps(executions);
    primary.enqueue(
      assistantMessage(
        { content: '<tool_call>\n{"name": "create_ticket", "arguments": {"title": "VPN down"}}' },
        "length",
      ),
      answer("Opened."),
    );
    const result = await runTurn({ run: testRun, history: [], userMessage: "VPN" }, d);
    expect(result.status).toBe("completed");
    expect(executions).toEqual([{ name: "create_ticket", args: { title: "VPN down" } }]);
  });

  it("a half-written call at length is never executed: the model is asked again", async () => {
    const executions: Execution[] = [];
    const { deps: d, trace } = deps(executions);
    primary.enqueue(
      assistantMessage(
        { content: '<tool_call>{"name": "create_ticket", "arguments": {"title": "VPN' },
        "length",
      ),
      answer("Could you say more?"),
    );
    const result = await runTurn({ run: testRun, history: [], userMessage: "VPN" }, d);
    expect(executions).toEqual([]);
    expect(result.answer).toBe("Could you say more?");
    expect(primary.requests).toHaveLength(2);
    expect(trace.of("model.truncated")).toHaveLength(1);
    expect(JSON.stringify(primary.requests[1]!.body.messages)).not.toContain("<tool_call>");
  });

  it("a call nobody can read is asked again with a hint, and never shown as the answer", async () => {
    const executions: Execution[] = [];
    const { deps: d, trace } = deps(executions);
    primary.enqueue(
      assistantMessage({ content: "<tool_call>create_ticket title=VPN</tool_call>" }),
      answer("Opened nothing yet; what title?"),
    );
    const result = await runTurn({ run: testRun, history: [], userMessage: "VPN" }, d);
    expect(result.answer).toBe("Opened nothing yet; what title?");
    expect(trace.of("model.unrecovered")).toMatchObject([{ marker: "<tool_call>", count: 1 }]);
    // System messages are folded into the first one on the wire.
    const system = primary.requests[1]!.body.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain("tried to call a tool, but the call could not be read");
    expect(primary.requests[0]!.body.messages[0]!.content).not.toContain("could not be read");
  });

  it("twice unreadable without a fallback: one clear sentence, nothing run", async () => {
    const executions: Execution[] = [];
    const { deps: d } = deps(executions);
    // A call tag around shell-like text: no format reads it.
    const bad = assistantMessage({ content: "<tool_call>create_ticket --title VPN</tool_call>" });
    primary.enqueue(bad, bad);
    const result = await runTurn({ run: testRun, history: [], userMessage: "VPN" }, d);
    expect(result.status).toBe("failed");
    expect(result.stopReason).toBe("unreadable_calls");
    expect(result.answer).toContain("could not read");
    expect(result.answer).toContain("npm run model:check");
    expect(result.answer).not.toContain("<tool_call>");
    expect(executions).toEqual([]);
  });

  it("twice unreadable with a fallback: the fallback model takes over, traced and kept with the run", async () => {
    const executions: Execution[] = [];
    const { deps: d, trace } = deps(executions, { fallbackModel: testModel(fallback, { model: "backup" }) });
    const bad = assistantMessage({ content: "[TOOL_CALLS]create_ticket[ARGS]{broken" });
    primary.enqueue(bad, bad);
    fallback.enqueue(
      toolCalls([{ name: "create_ticket", args: { title: "VPN" } }]),
      answer("Opened by backup."),
    );
    const result = await runTurn({ run: testRun, history: [], userMessage: "VPN" }, d);
    expect(result.answer).toBe("Opened by backup.");
    expect(executions).toEqual([{ name: "create_ticket", args: { title: "VPN" } }]);
    expect(fallback.requests.map((r) => r.body.model)).toEqual(["backup", "backup"]);
    expect(trace.of("model.fallback")).toMatchObject([
      { model: "backup", from: "scripted", reason: "unreadable_output" },
    ]);
    expect(result.fallback).toMatchObject({ model: "backup", reason: "unreadable_output" });
  });

  it("an unreachable primary hands the step to the fallback model", async () => {
    const executions: Execution[] = [];
    const down = new ScriptedModelServer();
    await down.start();
    const url = down.baseURL;
    await down.stop();
    const { deps: d, trace } = deps(executions, {
      model: testModel(down, { baseURL: url, maxRetries: 0 } as never),
      fallbackModel: testModel(fallback, { model: "backup" }),
    });
    fallback.enqueue(answer("Backup here."));
    const result = await runTurn({ run: testRun, history: [], userMessage: "hi" }, d);
    expect(result.status).toBe("completed");
    expect(result.answer).toBe("Backup here.");
    expect(trace.of("model.error")).toHaveLength(1);
    expect(trace.of("model.fallback")).toMatchObject([{ reason: "primary_unavailable", model: "backup" }]);
    expect(result.steps).toBe(1);
  });

  it("without a fallback an unreachable model is one clear sentence", async () => {
    const down = new ScriptedModelServer();
    await down.start();
    const url = down.baseURL;
    await down.stop();
    const { deps: d } = deps([], { model: testModel(down, { baseURL: url, maxRetries: 0 } as never) });
    const result = await runTurn({ run: testRun, history: [], userMessage: "hi" }, d);
    expect(result.status).toBe("failed");
    expect(result.answer).toMatch(
      /^I could not get an answer from the model: The model at http:\/\/127\.0\.0\.1:\d+\/v1 could not be reached/,
    );
  });
});
