import { describe, expect, it } from "vitest";
import type { CallOutcome } from "../../../src/agent/run/call-tools.ts";
import { openCalls, RunState } from "../../../src/agent/run/state.ts";
import { createTracer, type TraceEvent } from "../../../src/agent/run/trace.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { testRun } from "../../helpers/runtime.ts";

const run = { ...testRun, runId: "run_state" };
const call = (id: string, name = "create_ticket") => ({ id, name, arguments: "{}" });
const result = (id: string, failed = false, name = "create_ticket"): CallOutcome => ({
  kind: "result",
  call: call(id, name),
  message: { role: "tool", toolCallId: id, name, content: `result ${id}` },
  failed,
  ...(failed ? { error: `error ${id}` } : {}),
});
const tracer = (events: TraceEvent[] = []) =>
  createTracer({
    logger: silentLogger(),
    runId: run.runId,
    sessionKey: run.sessionKey,
    onEvent: (e) => events.push(e),
  });

describe("RunState: the run's one owner", () => {
  it("starts from the history and the user's message, and counts steps and model calls", () => {
    const state = RunState.start(run, [{ role: "user", content: "earlier" }], "now");
    expect(state.messages).toEqual([
      { role: "user", content: "earlier" },
      { role: "user", content: "now", author: run.userId },
    ]);
    expect(state.beginStep()).toBe(1);
    state.countModelCall({ promptTokens: 10, completionTokens: 5, totalTokens: 15, requests: 0 });
    state.countModelCall({ promptTokens: 1, completionTokens: 1, totalTokens: 2, requests: 0 });
    expect(state.usage).toEqual({ promptTokens: 11, completionTokens: 6, totalTokens: 17, requests: 2 });
    expect(state.modelCalls).toBe(2);
    state.undoStep();
    expect(state.step).toBe(0);
    expect(state.countTruncation()).toBe(1);
    expect(state.countTruncation()).toBe(2);
    state.clearTruncations();
    expect(state.snapshot([]).truncations).toBe(0);
  });

  it("a snapshot is this moment's copy; a state from a snapshot never changes it", () => {
    const state = RunState.start(run, [], "hi");
    const first = state.snapshot([]);
    state.append({ role: "assistant", content: "", toolCalls: [call("a")] });
    state.countFailures([result("a", true)], 3);
    expect(first.messages).toHaveLength(1);
    expect(first.failures).toEqual({});
    const second = state.snapshot([]);
    const reopened = RunState.fromSnapshot(second);
    reopened.insertResults([result("a")]);
    reopened.countFailures([result("a")], 3);
    expect(second.messages).toHaveLength(2);
    expect(second.failures).toEqual({ create_ticket: 1 });
    expect(reopened.snapshot([]).messages).toHaveLength(3);
  });

  it("results go right after their call message, in call order, whatever order they come in", () => {
    const state = RunState.start(run, [], "hi");
    state.append({ role: "assistant", content: "", toolCalls: [call("a"), call("b"), call("c")] });
    state.insertResults([result("c")]);
    state.insertResults([result("b"), result("a")]);
    expect(state.messages.slice(2).map((m) => (m.role === "tool" ? m.toolCallId : m.role))).toEqual([
      "a",
      "b",
      "c",
    ]);
    expect(openCalls(state.messages)).toEqual([]);
    state.append({ role: "assistant", content: "", toolCalls: [call("d"), call("e")] });
    state.insertResults([result("e")]);
    expect(openCalls(state.messages).map((c) => c.id)).toEqual(["d"]);
  });

  it("counts each tool's failures in a row and names the first that reached the limit", () => {
    const state = RunState.start(run, [], "hi");
    expect(state.countFailures([result("1", true), result("2", true, "search_tickets")], 2)).toBeUndefined();
    expect(state.countFailures([result("3", false, "search_tickets"), result("4", true)], 2)).toEqual({
      tool: "create_ticket",
      failures: 2,
      lastError: "error 4",
    });
    expect(state.snapshot([]).failures).toEqual({ create_ticket: 2, search_tickets: 0 });
  });

  it("gives reused call ids new ones, traced", () => {
    const events: TraceEvent[] = [];
    const state = RunState.start(run, [], "hi");
    state.append({ role: "assistant", content: "", toolCalls: [call("call_0")] });
    const calls = [call("call_0"), call("call_1")];
    const unique = state.uniqueCallIds(calls, tracer(events));
    expect(unique[0]?.id).not.toBe("call_0");
    expect(unique[1]).toBe(calls[1]);
    expect(events.map((e) => e.event)).toContain("tool.repair");
    expect(state.uniqueCallIds([call("call_9")], tracer())).toEqual([call("call_9")]);
  });

  it("a run that ends without completing keeps its sentence as the last message; a pause carries its snapshot", () => {
    const stopped = RunState.start(run, [], "hi");
    stopped.append({ role: "assistant", content: "", toolCalls: [call("a")] });
    const end = stopped.finish({
      tracer: tracer(),
      status: "stopped",
      answer: "I stopped.",
      stopReason: "max_steps",
    });
    expect(end).toMatchObject({
      status: "stopped",
      answer: "I stopped.",
      stopReason: "max_steps",
      runId: run.runId,
    });
    // The open call got its synthetic result before the sentence (history stays valid).
    expect(end.messages.at(-1)).toEqual({ role: "assistant", content: "I stopped." });
    expect(end.messages.at(-2)?.role).toBe("tool");

    const waiting = RunState.start(run, [], "hi");
    waiting.switchToFallback({ model: "b", from: "a", reason: "primary_unavailable", step: 0 });
    const pending = [{ callId: "a", tool: "create_ticket", args: {}, argsSha256: "h" }];
    const paused = waiting.pause(pending, tracer());
    expect(paused).toMatchObject({ status: "paused", answer: "", fallback: { model: "b" } });
    expect(paused.snapshot).toMatchObject({ version: 1, pending, fallback: { model: "b" } });
  });
});
