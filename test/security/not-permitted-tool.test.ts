import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

interface AuditRow {
  action: string;
  tool: string;
  user_id: string | null;
  error: string | null;
  args: unknown;
  [key: string]: unknown;
}

/**
 * A call to a tool that exists but that the requester may not use (the model guessed it, or an
 * injection named it) is a denial: `tool.requested` + `tool.denied` with the actor and the reason,
 * the model is told it is not permitted (not that the tool does not exist), and nothing runs.
 */
describe("calls to tools the requester may not use", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  const rowsOf = (tool: string) =>
    execSql<AuditRow>(
      t.hermes.services.storage.db.db,
      `SELECT action, tool, user_id, error, args FROM audit_log WHERE tool = '${tool}' ORDER BY id`,
    );

  it("a member's call to the admin-only delete_ticket is audited as denied, and the model is told why", async () => {
    const count = async () =>
      (
        await execSql<{ n: number }>(
          t.hermes.services.storage.db.db,
          "SELECT count(*)::int AS n FROM tickets",
        )
      )[0]!.n;
    await execSql(
      t.hermes.services.storage.db.db,
      "INSERT INTO tickets (team_id, title, created_by) VALUES ('T0001', 'Printer jammed', 'U0ADMIN')",
    );
    const before = await count();
    model.enqueue(
      toolCalls([{ name: "delete_ticket", args: { id: 1 } }]),
      answer("I am not allowed to delete tickets."),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> delete ticket 1",
    });
    await waitFor(() => model.requests.length >= 2, 60_000, "the model's second request");
    const rows = await waitFor(
      async () => {
        const r = await rowsOf("delete_ticket");
        return r.length >= 2 ? r : undefined;
      },
      30_000,
      "audit rows",
    );
    expect(rows.map((r) => r.action)).toEqual(["tool.requested", "tool.denied"]);
    expect(rows.every((r) => r.user_id === "U0USER1")).toBe(true);
    expect(rows[1]!.error).toMatch(/delete_ticket needs level admin; the requester is user/);
    expect(rows[0]!.args).toEqual({ id: 1 });

    const toolMessage = model.requests[1]!.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toMatch(/permission denied/i);
    expect(toolMessage?.content).not.toMatch(/no tool named/i);
    // The model still only sees the tools the member may use.
    expect(model.requests[0]!.body.tools?.map((x) => x.function.name)).not.toContain("delete_ticket");
    // Nothing ran: no execution row, the ticket count is unchanged.
    expect(await count()).toBe(before);
    await waitFor(
      () => (t.thread("C0OPS", d.message!.ts) ?? []).some((m) => m.text.includes("not allowed to delete")),
      30_000,
      "the answer",
    );
  });

  it("a tool blocked for one user by an admin is denied with that reason, even with invalid arguments", async () => {
    await execSql(
      t.hermes.services.storage.db.db,
      "INSERT INTO users (id, level, tool_deny) VALUES ('U0WANGLEI', 'user', ARRAY['create_ticket']) ON CONFLICT (id) DO UPDATE SET tool_deny = EXCLUDED.tool_deny",
    );
    model.enqueue(toolCalls([{ name: "create_ticket", args: "{'title': ,,, " }]), answer("Blocked."));
    await t.sender.appMention({ user: "U0WANGLEI", channel: "C0OPS", text: "<@U0HERMES> open a ticket" });
    await waitFor(() => model.requests.length >= 2, 60_000, "the model's second request");
    const rows = await waitFor(
      async () => {
        const r = (await rowsOf("create_ticket")).filter((x) => x.user_id === "U0WANGLEI");
        return r.length >= 2 ? r : undefined;
      },
      30_000,
      "audit rows",
    );
    expect(rows.map((r) => r.action)).toEqual(["tool.requested", "tool.denied"]);
    expect(rows[1]!.error).toMatch(/blocked for this user by an admin/);
    const toolMessage = model.requests[1]!.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toMatch(/permission denied/i);
    // No help with the arguments of a tool the user may not call.
    expect(toolMessage?.content).not.toMatch(/valid JSON|Invalid arguments/);
  });

  it("a name no tool has is still 'unknown', listing only what the requester may call", async () => {
    model.enqueue(toolCalls([{ name: "drop_database", args: {} }]), answer("No such tool."));
    await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> drop it" });
    await waitFor(() => model.requests.length >= 2, 60_000, "the model's second request");
    const toolMessage = model.requests[1]!.body.messages.find((m) => m.role === "tool");
    expect(toolMessage?.content).toMatch(/no tool named "drop_database"/);
    expect(toolMessage?.content).toMatch(/create_ticket/);
    expect(toolMessage?.content).not.toMatch(/delete_ticket/);
  });
});
