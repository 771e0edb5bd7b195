import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { resumeRun, runTurn } from "../../src/agent/run/loop.ts";
import type { PolicyHook, ToolEvent } from "../../src/agent/run/policy-hook.ts";
import type { RunSnapshot } from "../../src/agent/run/snapshot.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { defineTool } from "../../src/tools/define-tool.ts";
import { testModel, testRegistry, testRun } from "../helpers/runtime.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

describe("pause for approval and resume", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  function setup() {
    const runs = { search: 0, send: 0 };
    const events: ToolEvent[] = [];
    const { registry } = testRegistry([
      defineTool({
        name: "search_tickets",
        description: "Search",
        input: z.object({ query: z.string() }),
        execute: () => {
          runs.search++;
          return [{ id: 7, title: "VPN down" }];
        },
      }),
      defineTool({
        name: "send_message",
        description: "Send a message",
        input: z.object({ to: z.string(), text: z.string() }),
        approval: "always",
        execute: ({ to }) => {
          runs.send++;
          return { sent: true, to };
        },
      }),
    ]);
    const policy: PolicyHook = ({ tool }) =>
      tool.approval === "always" ? { action: "needs_approval" } : { action: "allow" };
    const deps = {
      model: testModel(server),
      registry,
      logger: silentLogger(),
      policy,
      onToolEvent: async (e: ToolEvent) => {
        events.push(e);
      },
    };
    return { runs, events, deps };
  }

  async function pausedRun(s: ReturnType<typeof setup>) {
    server.enqueue(
      toolCalls([
        { name: "search_tickets", args: { query: "VPN" }, id: "call_search" },
        { name: "send_message", args: { to: "U0WANGLEI", text: "I'll join at three" }, id: "call_send" },
      ]),
    );
    const first = await runTurn(
      { run: testRun, history: [], userMessage: "find the VPN ticket and tell Wang Lei" },
      s.deps,
    );
    expect(first.status).toBe("paused");
    expect(s.runs).toEqual({ search: 1, send: 0 });
    expect(server.requests).toHaveLength(1);
    expect(first.snapshot!.pending).toHaveLength(1);
    expect(first.snapshot!.pending[0]).toMatchObject({
      callId: "call_send",
      tool: "send_message",
      args: { to: "U0WANGLEI" },
    });
    expect(first.snapshot!.pending[0]!.argsSha256).toMatch(/^[0-9a-f]{64}$/);
    // The snapshot survives a JSON round trip (it is stored in Postgres).
    const snapshot = JSON.parse(JSON.stringify(first.snapshot)) as RunSnapshot;
    expect(snapshot).toEqual(first.snapshot);
    return { first, snapshot };
  }

  it("approve: the pending call runs once, the allowed one is not re-run, the model is not re-asked for the paused step", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    server.enqueue(answer("Found ticket 7 and told Wang Lei."));
    const done = await resumeRun(
      snapshot,
      { call_send: { status: "approved", by: "U0ADMIN", argsSha256: snapshot.pending[0]!.argsSha256 } },
      s.deps,
    );
    expect(done.status).toBe("completed");
    expect(done.answer).toBe("Found ticket 7 and told Wang Lei.");
    expect(s.runs).toEqual({ search: 1, send: 1 });
    expect(server.requests).toHaveLength(2); // one call before the pause, one after: nothing repeated
    const msgs = server.requests[1]!.body.messages;
    const toolIds = msgs.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
    expect(toolIds).toEqual(["call_search", "call_send"]);
    expect(done.modelCalls).toBe(2);
    expect(s.events.map((e) => `${e.action}:${e.tool}`)).toEqual([
      "tool.requested:search_tickets",
      "tool.requested:send_message",
      "tool.executed:search_tickets",
      "tool.executed:send_message",
    ]);
  });

  it("reject: the model sees a rejection result and is told not to retry another way", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    server.enqueue(answer("OK, I did not send it."));
    const done = await resumeRun(snapshot, { call_send: { status: "rejected", by: "U0ADMIN" } }, s.deps);
    expect(done.status).toBe("completed");
    expect(s.runs).toEqual({ search: 1, send: 0 });
    const result = server.requests[1]!.body.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_send",
    )!;
    expect(result.content).toContain("rejected this call");
    expect(result.content).toContain("Do not retry it");
    expect(server.requests).toHaveLength(2);
  });

  it("expired counts as rejected", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    server.enqueue(answer("It expired."));
    await resumeRun(snapshot, { call_send: { status: "expired" } }, s.deps);
    expect(s.runs.send).toBe(0);
    const result = server.requests[1]!.body.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_send",
    )!;
    expect(result.content).toContain("expired");
  });

  it("an approval does not carry over to a tool whose definition changed while the card waited", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    expect(snapshot.pending[0]!.definition).toMatch(/^[0-9a-f]{64}$/);
    // The same name now means something else (an MCP server's list_changed, a redeploy).
    const sent: string[] = [];
    const { registry: changed } = testRegistry([
      s.deps.registry.get("search_tickets")!,
      defineTool({
        name: "send_message",
        description: "Send a message to everyone in the company",
        input: z.object({ to: z.string(), text: z.string() }),
        approval: "always",
        execute: ({ to }) => {
          sent.push(to);
          return { sent: true };
        },
      }),
    ]);
    server.enqueue(answer("The tool changed, so I did not send it."));
    const approved = {
      status: "approved" as const,
      by: "U0ADMIN",
      argsSha256: snapshot.pending[0]!.argsSha256,
    };
    await resumeRun(snapshot, { call_send: approved }, { ...s.deps, registry: changed });
    expect(sent).toEqual([]);
    expect(s.runs.send).toBe(0);
    const result = server.requests[1]!.body.messages.find(
      (m) => m.role === "tool" && m.tool_call_id === "call_send",
    )!;
    expect(result.content).toContain("definition");
    expect(s.events.find((e) => e.action === "tool.denied")).toMatchObject({
      tool: "send_message",
      reason: "the tool's definition changed since approval",
    });
  });

  it("a snapshot written before definitions were kept still resumes on the arguments' binding", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    delete snapshot.pending[0]!.definition;
    server.enqueue(answer("Sent."));
    const approved = {
      status: "approved" as const,
      by: "U0ADMIN",
      argsSha256: snapshot.pending[0]!.argsSha256,
    };
    await resumeRun(snapshot, { call_send: approved }, s.deps);
    expect(s.runs.send).toBe(1);
  });

  it("an approval bound to other arguments does not run the call", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    server.enqueue(answer("Not sent."));
    await resumeRun(
      snapshot,
      { call_send: { status: "approved", by: "U0ADMIN", argsSha256: "0".repeat(64) } },
      s.deps,
    );
    expect(s.runs.send).toBe(0);
    // A snapshot tampered with after approval is refused too.
    const tampered = structuredClone(snapshot);
    tampered.pending[0]!.args.to = "C0GENERAL";
    server.enqueue(answer("Not sent."));
    await resumeRun(tampered, { call_send: { status: "approved", by: "U0ADMIN" } }, s.deps);
    expect(s.runs.send).toBe(0);
    expect(s.events.filter((e) => e.action === "tool.denied")).toHaveLength(2);
  });

  it("policy is checked again at resume: a deny wins over the approval", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    s.deps.policy = ({ tool, approved }) =>
      tool.name === "send_message" && approved
        ? { action: "deny", reason: "you left the channel" }
        : { action: "allow" };
    server.enqueue(answer("Could not send."));
    await resumeRun(snapshot, { call_send: { status: "approved", by: "U0USER1" } }, s.deps);
    expect(s.runs.send).toBe(0);
    const result = server.requests[1]!.body.messages.find((m) => m.tool_call_id === "call_send")!;
    expect(result.content).toContain("you left the channel");
  });

  it("resume without a decision for a pending call stays paused and calls nothing", async () => {
    const s = setup();
    const { snapshot } = await pausedRun(s);
    const again = await resumeRun(snapshot, {}, s.deps);
    expect(again.status).toBe("paused");
    expect(again.snapshot!.pending.map((p) => p.callId)).toEqual(["call_send"]);
    expect(server.requests).toHaveLength(1);
    expect(s.runs).toEqual({ search: 1, send: 0 });
  });

  it("two calls needing approval: deciding one keeps the run paused for the other", async () => {
    const s = setup();
    server.enqueue(
      toolCalls([
        { name: "send_message", args: { to: "U1", text: "a" }, id: "c1" },
        { name: "send_message", args: { to: "U2", text: "b" }, id: "c2" },
      ]),
    );
    const first = await runTurn({ run: testRun, history: [], userMessage: "tell both" }, s.deps);
    expect(first.snapshot!.pending).toHaveLength(2);
    const mid = await resumeRun(first.snapshot!, { c1: { status: "approved" } }, s.deps);
    expect(mid.status).toBe("paused");
    expect(s.runs.send).toBe(1);
    server.enqueue(answer("Told U1; U2 was rejected."));
    const done = await resumeRun(
      JSON.parse(JSON.stringify(mid.snapshot)),
      { c2: { status: "rejected" } },
      s.deps,
    );
    expect(done.status).toBe("completed");
    expect(s.runs.send).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(
      server.requests[1]!.body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id),
    ).toEqual(["c1", "c2"]);
  });

  it("a history left paused is still valid for the next turn (pending call gets an interrupted result)", async () => {
    const s = setup();
    const { first } = await pausedRun(s);
    server.enqueue(answer("Hello again."));
    await runTurn({ run: testRun, history: first.messages, userMessage: "never mind" }, s.deps);
    const msgs = server.requests[1]!.body.messages;
    const results = msgs.filter((m) => m.role === "tool");
    expect(results.map((m) => m.tool_call_id)).toEqual(["call_search", "call_send"]);
    expect(results[1]!.content).toContain("interrupted");
  });
});
