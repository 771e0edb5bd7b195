import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { delegate } from "../../../src/agent/run/delegate.ts";
import { runTurn } from "../../../src/agent/run/loop.ts";
import type { ToolEvent } from "../../../src/agent/run/policy-hook.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createPolicy } from "../../../src/policy/create-policy.ts";
import { defineTool } from "../../../src/tools/define-tool.ts";
import { testModel, testRegistry, testRun } from "../../helpers/runtime.ts";
import { answer, ScriptedModelServer, toolCalls } from "../../helpers/scripted-model.ts";

describe("delegate", () => {
  const server = new ScriptedModelServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());
  beforeEach(() => server.reset());

  it("runs a sub-agent with a fresh context and only the caller's tools that need no approval", async () => {
    const ran: string[] = [];
    const search = defineTool({
      name: "search_tickets",
      description: "search",
      level: "viewer",
      input: z.object({ query: z.string() }),
      execute: ({ query }) => {
        ran.push(`search:${query}`);
        return [{ id: 1, title: "VPN down" }];
      },
    });
    const send = defineTool({
      name: "send_message",
      description: "send",
      approval: "always",
      input: z.object({ to: z.string(), text: z.string() }),
      execute: () => ran.push("send"),
    });
    const adminOnly = defineTool({
      name: "purge",
      description: "purge",
      level: "admin",
      input: z.object({}),
      execute: () => ran.push("purge"),
    });
    const { registry } = testRegistry([search, send, adminOnly]);
    const events: ToolEvent[] = [];
    const model = testModel(server);
    registry.register(
      delegate({
        model,
        registry,
        logger: silentLogger(),
        access: () => ({ allowed, policy: hook, onToolEvent: async (e) => void events.push(e) }),
      }),
    );
    const { hook, allowed } = createPolicy({ tools: registry.list(), level: "user" });
    server.enqueue(
      toolCalls([
        {
          name: "delegate",
          args: { task: "find VPN tickets", tools: ["search_tickets", "send_message", "purge"] },
        },
      ]),
      // The sub-agent: its first request has a fresh context.
      (req) => {
        expect(req.body.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
          "find VPN tickets",
        ]);
        expect(req.body.tools!.map((t) => t.function.name)).toEqual(["search_tickets"]);
        return toolCalls([{ name: "search_tickets", args: { query: "VPN" } }]);
      },
      // The sub-agent tries a tool it was not given: refused, and the attempt is audited as denied.
      toolCalls([{ name: "send_message", args: { to: "U1", text: "x" } }]),
      answer("One VPN ticket: #1 VPN down."),
      answer("The sub-agent found ticket #1."),
    );
    const r = await runTurn(
      { run: testRun, history: [], userMessage: "research VPN" },
      { model, registry, logger: silentLogger(), policy: hook, toolNames: [...allowed] },
    );
    expect(r.answer).toBe("The sub-agent found ticket #1.");
    expect(ran).toEqual(["search:VPN"]);
    const delegateResult = server.requests[4]!.body.messages.find((m) => m.role === "tool")!;
    expect(delegateResult.content).toContain("Sub-agent completed after 3 steps using search_tickets:");
    expect(delegateResult.content).toContain("One VPN ticket: #1 VPN down.");
    expect(delegateResult.content).toContain("Not available to the sub-agent: send_message, purge");
    expect(events.map((e) => `${e.action}:${e.tool}`)).toEqual([
      "tool.requested:search_tickets",
      "tool.executed:search_tickets",
      "tool.requested:send_message",
      "tool.denied:send_message",
    ]);
  });
});
