import { describe, expect, it } from "vitest";
import type { TraceEvent } from "../../../src/agent/run/trace.ts";
import { taskChunkOf } from "../../../src/slack/stream/task-chunks.ts";

const event = (e: Partial<TraceEvent> & { event: TraceEvent["event"] }): TraceEvent => ({
  runId: "run_1",
  sessionKey: "s",
  step: 2,
  ...e,
});

/** The task cards a streamed answer shows for a run's tool calls (Slack's `task_update` chunks). */
describe("task_update chunks from trace events", () => {
  it("a call's states: in progress when it starts, complete when it ends well, one card by the call id", () => {
    const start = taskChunkOf(event({ event: "tool.start", tool: "search_tickets", callId: "call_1" }));
    const end = taskChunkOf(event({ event: "tool.end", tool: "search_tickets", callId: "call_1", ok: true }));
    expect(start).toEqual({
      type: "task_update",
      id: "call_1",
      title: "`search_tickets`",
      status: "in_progress",
    });
    expect(end).toEqual({ type: "task_update", id: "call_1", title: "`search_tickets`", status: "complete" });
  });

  it("a call that failed is an error card that says so, without its error text (it may hold personal data)", () => {
    const chunk = taskChunkOf(
      event({
        event: "tool.end",
        tool: "get_current_time",
        callId: "call_2",
        ok: false,
        error: 'Unknown time zone "li.ming@example.com"',
      }),
    );
    expect(chunk).toEqual({
      type: "task_update",
      id: "call_2",
      title: "`get_current_time`",
      status: "error",
      details: "failed",
    });
    expect(JSON.stringify(chunk)).not.toContain("example.com");
  });

  it("a call the policy denied is an error card: not allowed (first asked, and again on resume)", () => {
    for (const e of [
      event({
        event: "tool.policy",
        tool: "delete_ticket",
        callId: "call_3",
        decision: "deny",
        reason: "admin",
      }),
      event({
        event: "tool.policy",
        tool: "delete_ticket",
        callId: "call_3",
        decision: "deny",
        approved: true,
      }),
    ])
      expect(taskChunkOf(e)).toEqual({
        type: "task_update",
        id: "call_3",
        title: "`delete_ticket`",
        status: "error",
        details: "not allowed",
      });
  });

  it("a call waiting for approval is pending; an allowed call shows no card until it starts", () => {
    expect(
      taskChunkOf(
        event({ event: "tool.policy", tool: "send_message", callId: "c4", decision: "needs_approval" }),
      ),
    ).toMatchObject({ id: "c4", status: "pending", details: "waiting for approval" });
    expect(
      taskChunkOf(event({ event: "tool.policy", tool: "send_message", callId: "c4", decision: "allow" })),
    ).toBeUndefined();
  });

  it("a call without an id gets one from its step and tool; events about no tool make no card", () => {
    expect(taskChunkOf(event({ event: "tool.start", tool: "search_tickets" }))).toMatchObject({
      id: "2:search_tickets",
    });
    expect(taskChunkOf(event({ event: "model.response", toolCalls: ["search_tickets"] }))).toBeUndefined();
    expect(taskChunkOf(event({ event: "model.text", delta: "hi " }))).toBeUndefined();
  });
});
