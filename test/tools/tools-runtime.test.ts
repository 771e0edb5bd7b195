import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runTurn } from "../../src/agent/run/loop.ts";
import type { ToolEvent } from "../../src/agent/run/policy-hook.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createPolicy } from "../../src/policy/create-policy.ts";
import { createTicketTools } from "../../src/tools/tickets/ticket-tools.ts";
import { DRIVERS, openTestStore, type TestStore } from "../helpers/pg.ts";
import { testModel, testRegistry, testRun } from "../helpers/runtime.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { type SlackSandbox, startSlackSandbox } from "./tool-harness.ts";

/** The real runtime over HTTP with a scripted model: the ticket tools as a model reaches them. */
describe.each(DRIVERS)("ticket tools through the runtime on %s", (kind) => {
  const server = new ScriptedModelServer();
  let store: TestStore;
  let sandbox: SlackSandbox;
  beforeAll(async () => {
    await server.start();
    store = await openTestStore(kind);
    sandbox = await startSlackSandbox();
  });
  afterAll(async () => {
    await server.stop();
    await sandbox.stop();
    await store.cleanup();
  });
  beforeEach(() => server.reset());

  it("the model creates a ticket, then searches and gets it back", async () => {
    const tools = createTicketTools({
      db: store.handle.db,
      slack: sandbox.slack,
      isAdmin: () => false,
    });
    const { registry } = testRegistry(tools);
    const policy = createPolicy({ tools, level: "user" });
    const events: ToolEvent[] = [];
    server.enqueue(
      toolCalls([
        {
          name: "create_ticket",
          args: { title: "三楼打印机卡纸", priority: "high", assignee: "<@U0WANGLEI>" },
        },
      ]),
      // A local model's sloppy arguments: single quotes, a string number.
      toolCalls([{ name: "search_tickets", args: "{'query': '打印机', 'limit': '5'}" }]),
      answer("Ticket #1 is open and assigned to Wang Lei."),
    );
    const result = await runTurn(
      { run: testRun, history: [], userMessage: "三楼打印机卡纸了，帮我开个工单给王磊" },
      {
        model: testModel(server),
        registry,
        logger: silentLogger(),
        policy: policy.hook,
        toolNames: [...policy.allowed],
        onToolEvent: async (e) => {
          events.push(e);
        },
      },
    );
    expect(result.status).toBe("completed");
    expect(result.answer).toBe("Ticket #1 is open and assigned to Wang Lei.");

    // The model was offered only what a user may call: no delete_ticket.
    const offered = server.requests[0]!.body.tools!.map((t) => t.function.name).sort();
    expect(offered).toEqual(["create_ticket", "get_ticket", "search_tickets", "update_ticket"]);

    const toolResults = (i: number) =>
      server.requests[i]!.body.messages.filter((m) => m.role === "tool").map((m) => m.content ?? "");
    expect(JSON.parse(toolResults(1)[0]!)).toMatchObject({
      created: "#1",
      title: "三楼打印机卡纸",
      priority: "high",
      assignee: "U0WANGLEI",
      created_by: testRun.userId,
    });
    const search = JSON.parse(toolResults(2)[1]!);
    expect(search).toMatchObject({ count: 1, more: false });
    expect(search.tickets[0]).toMatchObject({ ticket: "#1", title: "三楼打印机卡纸", status: "open" });
    expect(events.map((e) => `${e.action}:${e.tool}`)).toEqual([
      "tool.requested:create_ticket",
      "tool.executed:create_ticket",
      "tool.requested:search_tickets",
      "tool.executed:search_tickets",
    ]);
  });
});
