import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandModel } from "../../../src/agent/command/command-model.ts";
import { runTurn } from "../../../src/agent/run/loop.ts";
import type { ToolEvent } from "../../../src/agent/run/policy-hook.ts";
import { silentLogger } from "../../../src/core/logger.ts";
import { createPolicy } from "../../../src/policy/create-policy.ts";
import { createTicketTools } from "../../../src/tools/tickets/ticket-tools.ts";
import { execSql, openTestStore, type TestStore } from "../../helpers/pg.ts";
import { testRegistry, testRun } from "../../helpers/runtime.ts";
import { type SlackSandbox, startSlackSandbox } from "../tool-harness.ts";

/**
 * Ticket assignees and creators named as people write them, through the runtime in command mode:
 * the names become ids before policy and audit, and the stored ticket holds the id.
 */
describe("ticket tools take people by name", () => {
  let store: TestStore;
  let sandbox: SlackSandbox;
  const events: ToolEvent[] = [];
  let turn: (text: string) => Promise<string>;

  beforeAll(async () => {
    store = await openTestStore("postgres");
    sandbox = await startSlackSandbox([
      { id: "U0ZHAOMIN", name: "zhao.min", realName: "Zhao Min", displayName: "赵敏" },
    ]);
    const tools = createTicketTools({ db: store.handle.db, slack: sandbox.slack, isAdmin: () => false });
    const { registry } = testRegistry(tools);
    const policy = createPolicy({ tools, level: "user" });
    turn = async (text) => {
      const r = await runTurn(
        { run: testRun, history: [], userMessage: text },
        {
          model: createCommandModel(),
          registry,
          logger: silentLogger(),
          policy: policy.hook,
          toolNames: [...policy.allowed],
          onToolEvent: async (e) => {
            events.push(e);
          },
        },
      );
      return r.answer ?? "";
    };
  });
  afterAll(async () => {
    await sandbox.stop();
    await store.cleanup();
  });

  const lastRequested = (tool: string) =>
    events.filter((e) => e.tool === tool && e.action === "tool.requested").at(-1);

  it("assignee by real name, @handle or Chinese display name is stored, audited and searched as the id", async () => {
    expect(await turn('run create_ticket title="VPN down" assignee="Wang Lei"')).toContain(
      "assigned to <@U0WANGLEI>",
    );
    expect(lastRequested("create_ticket")?.args).toMatchObject({ assignee: "U0WANGLEI" });

    expect(await turn("run update_ticket id=1 assignee=@zhao.min")).toContain(
      "assignee <@U0WANGLEI> → <@U0ZHAOMIN>",
    );
    expect(lastRequested("update_ticket")?.args).toMatchObject({ id: 1, assignee: "U0ZHAOMIN" });

    const found = await turn("run search_tickets assignee=赵敏 created_by=li.ming");
    expect(found).toContain("VPN down");
    expect(lastRequested("search_tickets")?.args).toEqual({ assignee: "U0ZHAOMIN", created_by: "U0USER1" });
    // "me" and "none" are the tool's own words, left as they are.
    await turn("run search_tickets assignee=none created_by=me");
    expect(lastRequested("search_tickets")?.args).toEqual({ assignee: "none", created_by: "me" });
  });

  it("an unknown name is refused before anything runs, with the close match", async () => {
    const before = events.length;
    expect(await turn('run create_ticket title="Printer" assignee="Wang"')).toBe(
      '`create_ticket` was not run: No one named "Wang" is in this workspace. Did you mean @wang.lei (Wang Lei)?',
    );
    expect(events.slice(before).map((e) => e.action)).toEqual(["tool.requested", "tool.failed"]);
    const rows = await execSql<{ n: number }>(
      store.handle.db,
      "SELECT count(*)::int AS n FROM tickets WHERE title = 'Printer'",
    );
    expect(rows[0]?.n).toBe(0);
  });
});
