import { describe, expect, it } from "vitest";
import { emptyUsage, type ToolCall } from "../../src/agent/context/messages.ts";
import { continueRun } from "../../src/agent/run/continue-run.ts";
import { runTurn } from "../../src/agent/run/loop.ts";
import type { RunSnapshot } from "../../src/agent/run/snapshot.ts";
import { silentLogger } from "../../src/core/logger.ts";
import {
  type Execution,
  fixtureTools,
  inProcessModel,
  testModel,
  testRegistry,
  testRun,
} from "../helpers/runtime.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

const scriptedModel = inProcessModel;

const call = (id: string, title: string): ToolCall => ({
  id,
  name: "create_ticket",
  arguments: JSON.stringify({ title }),
});

describe("run checkpoints in the runtime", () => {
  it("checkpoints at the start, before a step's calls run and after their results; a checkpoint that fails stops the run before any call", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const { model } = scriptedModel([{ toolCalls: [call("call_a", "VPN down")] }, { content: "Done." }]);
    const kept: RunSnapshot[] = [];
    const result = await runTurn(
      { run: { ...testRun, runId: "run_cp" }, history: [], userMessage: "open a ticket" },
      {
        model,
        registry,
        logger: silentLogger(),
        checkpoint: async (s) => void kept.push(structuredClone(s)),
      },
    );
    expect(result.status).toBe("completed");
    expect(kept.map((s) => [s.step, s.messages.at(-1)?.role])).toEqual([
      [0, "user"],
      [1, "assistant"], // the step's calls, before they run
      [1, "tool"], // their results
    ]);
    expect(kept.every((s) => s.pending.length === 0 && s.run.runId === "run_cp")).toBe(true);

    // Storage gone when the step is to be kept: nothing runs.
    const refused: Execution[] = [];
    const again = scriptedModel([{ toolCalls: [call("call_b", "Printer")] }]);
    let n = 0;
    await expect(
      runTurn(
        { run: { ...testRun, runId: "run_cp2" }, history: [], userMessage: "open a ticket" },
        {
          model: again.model,
          registry: testRegistry(fixtureTools(refused)).registry,
          logger: silentLogger(),
          checkpoint: async () => {
            if (++n > 1) throw new Error("storage down");
          },
        },
      ),
    ).rejects.toThrow("storage down");
    expect(refused).toEqual([]);
  });

  it("continues from a checkpoint: the step is not asked again, interrupted and recorded calls are not run, an unstarted one is", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const { model, sent } = scriptedModel([{ content: "Two of three." }]);
    const snapshot: RunSnapshot = {
      version: 1,
      run: { ...testRun, runId: "run_cont" },
      messages: [
        { role: "user", content: "three tickets" },
        {
          role: "assistant",
          content: "",
          toolCalls: [call("c1", "one"), call("c2", "two"), call("c3", "three")],
        },
      ],
      pending: [],
      step: 1,
      usage: emptyUsage(),
      modelCalls: 1,
      failures: {},
      truncations: 0,
    };
    const result = await continueRun(
      snapshot,
      {
        c1: { kind: "interrupted" },
        c2: { kind: "result", content: "ticket 7 created", failed: false },
        c3: { kind: "not_started" },
      },
      { model, registry, logger: silentLogger() },
    );
    expect(result.status).toBe("completed");
    expect(executions.map((e) => e.args.title)).toEqual(["three"]);
    expect(sent).toHaveLength(1);
    const tools = sent[0]!.filter((m) => m.role === "tool");
    expect(tools.map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(["c1", "c2", "c3"]);
    expect(tools[0]!.content).toContain("Interrupted");
    expect(tools[1]!.content).toBe("ticket 7 created");
  });

  it("a call id the server reuses in a later step gets a fresh one (ids stay unique within a run)", async () => {
    const executions: Execution[] = [];
    const { registry } = testRegistry(fixtureTools(executions));
    const { model, sent } = scriptedModel([
      { toolCalls: [call("call_0", "first")] },
      { toolCalls: [call("call_0", "second")] },
      { content: "Both." },
    ]);
    const result = await runTurn(
      { run: testRun, history: [], userMessage: "two tickets" },
      { model, registry, logger: silentLogger() },
    );
    expect(result.status).toBe("completed");
    expect(executions).toHaveLength(2);
    const ids = sent[2]!.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toBe("call_0");
  });

  it("an argument text over the size cap is kept only as a preview: refused for its size, never checkpointed, audited or resent whole", async () => {
    const server = await new ScriptedModelServer().start();
    try {
      const executions: Execution[] = [];
      const { registry } = testRegistry(fixtureTools(executions));
      const huge = JSON.stringify({ title: "x".repeat(1024 * 1024) });
      server.enqueue(
        toolCalls([
          { name: "create_ticket", args: huge },
          { name: "create_ticket", args: JSON.stringify({ title: "small" }) },
        ]),
        answer("One of them was too long."),
      );
      const kept: string[] = [];
      const audited: unknown[] = [];
      const result = await runTurn(
        { run: testRun, history: [], userMessage: "two tickets" },
        {
          model: testModel(server),
          registry,
          logger: silentLogger(),
          checkpoint: async (s) => void kept.push(JSON.stringify(s)),
          onToolEvent: async (e) => void audited.push(e),
        },
      );
      expect(result.status).toBe("completed");
      expect(executions.map((e) => e.args.title)).toEqual(["small"]);
      // The model is told why, with the length it wrote.
      const second = server.requests[1]!.body.messages as Array<{ role: string; content: string }>;
      const refusal = second.filter((m) => m.role === "tool")[0]!.content;
      expect(refusal).toContain(
        `the arguments are ${huge.length} characters long; at most 262144 are accepted`,
      );
      // Not one checkpoint, audit event or resent request carries the megabyte.
      expect(Math.max(...kept.map((k) => k.length))).toBeLessThan(20_000);
      expect(JSON.stringify(audited).length).toBeLessThan(20_000);
      expect(JSON.stringify(second).length).toBeLessThan(20_000);
      const resent = second.find((m) => m.role === "assistant") as unknown as {
        tool_calls: Array<{ function: { arguments: string } }>;
      };
      expect(resent.tool_calls.map((c) => c.function.arguments)).toEqual(["{}", '{"title":"small"}']);
    } finally {
      await server.stop();
    }
  });
});
