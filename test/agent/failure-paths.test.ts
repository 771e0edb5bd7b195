import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { runTurn } from "../../src/agent/run/loop.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { testModel, testRegistry, testRun, traceCollector } from "../helpers/runtime.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

describe("failure paths end with the documented message", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  const flaky = (behaviour: "throw" | "hang", opts: { idempotent?: boolean; retries?: number } = {}) => {
    const calls = { n: 0 };
    const tool = defineTool({
      name: "lookup",
      description: "Look something up",
      input: z.object({ q: z.string() }),
      timeoutMs: 100,
      ...opts,
      execute: async (_args, ctx) => {
        calls.n++;
        if (behaviour === "throw") throw new Error("backend said 503");
        await new Promise((r, reject) => {
          const t = setTimeout(r, 5000);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(t);
            reject(new Error("aborted"));
          });
        });
        return "late";
      },
    });
    return { tool, calls };
  };

  it("a tool that throws: the model reads the error (no stack) and can answer", async () => {
    const { tool, calls } = flaky("throw");
    const { registry } = testRegistry([tool]);
    server.enqueue(toolCalls([{ name: "lookup", args: { q: "x" } }]), answer("The lookup service is down."));
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "look up x" },
      { model: testModel(server), registry, logger: silentLogger() },
    );
    expect(r.status).toBe("completed");
    expect(calls.n).toBe(1); // not idempotent: no retry
    const result = server.requests[1]!.body.messages.find((m) => m.role === "tool")!;
    expect(result.content).toBe("Error from lookup: backend said 503");
  });

  it("a tool that times out is aborted and reported; idempotent tools are retried", async () => {
    const { tool, calls } = flaky("hang", { idempotent: true, retries: 2 });
    const { registry } = testRegistry([tool]);
    server.enqueue(toolCalls([{ name: "lookup", args: { q: "x" } }]), answer("Timed out."));
    const started = Date.now();
    await runTurn(
      { run: testRun, history: [], userMessage: "look up x" },
      { model: testModel(server), registry, logger: silentLogger() },
    );
    expect(calls.n).toBe(3);
    expect(Date.now() - started).toBeLessThan(2000);
    const result = server.requests[1]!.body.messages.find((m) => m.role === "tool")!;
    expect(result.content).toBe("Error from lookup: lookup did not finish within 100 ms.");
  });

  it("the same tool failing 3 times in a row stops the run", async () => {
    const { tool, calls } = flaky("throw");
    const { registry } = testRegistry([tool]);
    for (let i = 0; i < 3; i++) server.enqueue(toolCalls([{ name: "lookup", args: { q: `x${i}` } }]));
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "look up x" },
      { model: testModel(server), registry, logger: silentLogger() },
    );
    expect(r.status).toBe("stopped");
    expect(r.stopReason).toBe("repeated_failure");
    expect(r.answer).toBe(
      "I stopped because the tool lookup failed 3 times in a row (last error: backend said 503).",
    );
    expect(calls.n).toBe(3);
    expect(server.requests).toHaveLength(3);
    // The history ends with the stop message and stays valid.
    expect(r.messages.at(-1)).toEqual({ role: "assistant", content: r.answer });
  });

  it("the step limit stops a model that never answers", async () => {
    const { registry } = testRegistry([
      defineTool({ name: "ping", description: "ping", input: z.object({}), execute: () => "pong" }),
    ]);
    server.fallback = toolCalls([{ name: "ping" }]);
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "ping forever" },
      { model: testModel(server), registry, logger: silentLogger(), limits: { maxSteps: 4 } },
    );
    expect(r.status).toBe("stopped");
    expect(r.stopReason).toBe("max_steps");
    expect(r.answer).toBe(
      "I stopped after 4 steps without finishing, which is my limit for one request. Ask again with a narrower task if you need more.",
    );
    expect(server.requests).toHaveLength(4);
  });

  it("the wall-clock budget stops a slow turn", async () => {
    const { registry } = testRegistry([]);
    server.enqueue({ ...(answer("too late") as { completion: Record<string, unknown> }), delayMs: 1500 });
    const started = Date.now();
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model: testModel(server), registry, logger: silentLogger(), limits: { turnTimeoutMs: 300 } },
    );
    expect(Date.now() - started).toBeLessThan(1200);
    expect(r.status).toBe("stopped");
    expect(r.stopReason).toBe("turn_timeout");
    expect(r.answer).toBe("I stopped because this request ran longer than its time budget of 0.3 seconds.");
  });

  it("model 500 then 200: retried, one answer", async () => {
    const { registry } = testRegistry([]);
    const trace = traceCollector();
    server.enqueue({ status: 500 }, answer("hello"));
    const model = testModel(server, { onRetry: () => {} });
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model, registry, logger: silentLogger(), onTraceEvent: trace.onTraceEvent },
    );
    expect(r.status).toBe("completed");
    expect(r.answer).toBe("hello");
    expect(server.requests).toHaveLength(2);
    expect(r.modelCalls).toBe(1);
  });

  it("model 429 with Retry-After: waits as asked, then succeeds", async () => {
    const { registry } = testRegistry([]);
    const retries: Array<{ status?: number; delayMs: number }> = [];
    server.enqueue({ status: 429, headers: { "retry-after": "1" } }, answer("hello"));
    const model = testModel(server, { onRetry: (i) => retries.push(i) });
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model, registry, logger: silentLogger() },
    );
    expect(r.answer).toBe("hello");
    expect(retries).toEqual([expect.objectContaining({ status: 429, delayMs: 1000 })]);
    expect(server.requests[1]!.at - server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("model 429 asking for longer than we wait: a clear message at once", async () => {
    const { registry } = testRegistry([]);
    server.enqueue({ status: 429, headers: { "retry-after": "3600" } });
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model: testModel(server), registry, logger: silentLogger() },
    );
    expect(r.status).toBe("failed");
    expect(r.stopReason).toBe("model_error");
    expect(r.answer).toBe(
      `I could not get an answer from the model: The model at ${server.baseURL} is rate limited for 3600 s; try again later.`,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("model always 500: fails after the configured retries with the status", async () => {
    const { registry } = testRegistry([]);
    server.fallback = { status: 503 };
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model: testModel(server, { maxRetries: 2 }), registry, logger: silentLogger() },
    );
    expect(r.status).toBe("failed");
    expect(r.answer).toBe(
      `I could not get an answer from the model: The model at ${server.baseURL} answered HTTP 503 after 3 attempts.`,
    );
    expect(server.requests).toHaveLength(3);
  });

  it("model unreachable: a connection error message, no stack", async () => {
    const { registry } = testRegistry([]);
    const model = testModel(server, { baseURL: "http://127.0.0.1:9/v1", maxRetries: 1 });
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model, registry, logger: silentLogger() },
    );
    expect(r.status).toBe("failed");
    expect(r.answer).toMatch(
      /^I could not get an answer from the model: The model at http:\/\/127\.0\.0\.1:9\/v1 could not be reached after 2 attempts: /,
    );
    expect(r.answer).not.toMatch(/\n\s+at /);
  });

  it("cancelling the turn stops it with the cancel message", async () => {
    const { registry } = testRegistry([]);
    server.enqueue({ ...(answer("late") as { completion: Record<string, unknown> }), delayMs: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "hi" },
      { model: testModel(server), registry, logger: silentLogger(), signal: controller.signal },
    );
    expect(r.stopReason).toBe("cancelled");
    expect(r.answer).toBe("The request was cancelled before it finished.");
  });
});
