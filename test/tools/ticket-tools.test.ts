import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPolicy } from "../../src/policy/create-policy.ts";
import { createTicketTools } from "../../src/tools/tickets/ticket-tools.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { json, run, type SlackSandbox, startSlackSandbox, toolCaller } from "./tool-harness.ts";

const ALICE = "U0ALICE";
const BOB = "U0BOB";
const CAROL = "U0CAROL";
const ADMIN = "U0ADMIN";

interface Summary {
  ticket: string;
  title: string;
  status: string;
  priority: string;
  assignee: string | null;
  created_by: string;
}

describe.each(DRIVERS)("ticket tools on %s", (kind) => {
  let store: TestStore;
  let sandbox: SlackSandbox;
  let call: ReturnType<typeof toolCaller>;
  let tools: ReturnType<typeof createTicketTools>;

  beforeAll(async () => {
    store = await openTestStore(kind);
    // U0ADMIN is in the demo workspace already.
    sandbox = await startSlackSandbox([
      { id: ALICE, name: "alice" },
      { id: BOB, name: "bob" },
      { id: CAROL, name: "carol" },
      { id: "U0GONE", name: "gone", deleted: true },
      { id: "U0BOTTY", name: "botty", isBot: true },
    ]);
    tools = createTicketTools({ db: store.handle.db, slack: sandbox.slack, isAdmin: (id) => id === ADMIN });
    call = toolCaller(tools);
  });
  afterAll(async () => {
    await sandbox.stop();
    await store.cleanup();
  });
  beforeEach(async () => {
    await execSql(store.handle.db, "TRUNCATE tickets RESTART IDENTITY");
  });

  const create = async (args: Record<string, unknown>, user = ALICE) =>
    json<Summary & { created: string }>(await call("create_ticket", args, run(user)));

  describe("create_ticket", () => {
    it("creates with defaults: open, medium, created by the requester, #id in the result", async () => {
      const t = await create({ title: "VPN down on floor 3" });
      expect(t).toMatchObject({
        created: "#1",
        ticket: "#1",
        title: "VPN down on floor 3",
        status: "open",
        priority: "medium",
        assignee: null,
        created_by: ALICE,
      });
      const [row] = await execSql(store.handle.db, "SELECT description, comments FROM tickets WHERE id = 1");
      expect(row).toEqual({ description: "", comments: [] });
    });

    it("takes a mention, an id or 'me' as assignee and stores the user id", async () => {
      expect((await create({ title: "a", assignee: `<@${BOB}>`, priority: "urgent" })).assignee).toBe(BOB);
      expect((await create({ title: "b", assignee: `<@${BOB}|bob>` })).assignee).toBe(BOB);
      expect((await create({ title: "c", assignee: CAROL })).assignee).toBe(CAROL);
      expect((await create({ title: "d", assignee: "me" })).assignee).toBe(ALICE);
      // Asked of Slack (users.info on the emulator), never taken from the model.
      expect(sandbox.emulator.callsTo("users.info").map((c) => c.args.user)).toEqual(
        expect.arrayContaining([BOB, CAROL, ALICE]),
      );
    });

    it("refuses unknown, deactivated and bot assignees and references that are not users", async () => {
      const unknown = await call("create_ticket", { title: "x", assignee: "U0NOBODY" }, run(ALICE));
      expect(unknown.ok).toBe(false);
      expect(unknown.content).toContain("Cannot assign to U0NOBODY: there is no such Slack user.");
      const gone = await call("create_ticket", { title: "x", assignee: "<@U0GONE>" }, run(ALICE));
      expect(gone.content).toContain("deactivated");
      const bot = await call("create_ticket", { title: "x", assignee: "U0BOTTY" }, run(ALICE));
      expect(bot.content).toContain("it is a bot");
      const name = await call("create_ticket", { title: "x", assignee: "bob" }, run(ALICE));
      expect(name.content).toContain('assignee "bob" is not a user');
      // Slack failing is not "no such user": the ticket is not created and the reason says why.
      sandbox.emulator.faults.fail("users.info", "internal_error");
      const down = await call("create_ticket", { title: "x", assignee: BOB }, run(ALICE));
      expect(down.content).toBe(
        `Error from create_ticket: Could not look up ${BOB} in Slack, so nothing was changed.`,
      );
      const rows = await execSql(store.handle.db, "SELECT count(*)::int AS n FROM tickets");
      expect(rows[0]!.n).toBe(0);
    });

    it("validates input: a title is required, priorities are the four levels", async () => {
      const missing = await call("create_ticket", { description: "no title" }, run(ALICE));
      expect(missing.ok).toBe(false);
      expect(missing.content).toContain("title");
      const bad = await call("create_ticket", { title: "x", priority: "critical" }, run(ALICE));
      expect(bad.content).toMatch(/priority/);
      // Safe coercion: "HIGH" is the enum value "high".
      expect((await create({ title: "x", priority: "HIGH" })).priority).toBe("high");
    });
  });

  describe("get_ticket", () => {
    it("returns description and comments; a missing id is a clear not-found", async () => {
      await create({ title: "Printer jam", description: "Tray 2 is stuck" });
      const t = json(await call("get_ticket", { id: 1 }, run(BOB)));
      expect(t).toMatchObject({ ticket: "#1", description: "Tray 2 is stuck", comments: [] });
      const missing = await call("get_ticket", { id: 42 }, run(BOB));
      expect(missing.ok).toBe(false);
      expect(missing.content).toBe("Error from get_ticket: There is no ticket #42.");
      // "7" from a model is coerced to 7.
      expect((await call("get_ticket", { id: "1" }, run(BOB))).ok).toBe(true);
    });
  });

  describe("search_tickets", () => {
    beforeEach(async () => {
      await create({ title: "三楼打印机卡纸", description: "纸盒二卡住了" });
      await create({ title: "VPN down", description: "Cannot reach the Shanghai office", assignee: BOB });
      await create({ title: "Laptop battery", description: "swelling, 100% unsafe" }, BOB);
      await create({ title: "Printer toner low", description: "HP in room 301", priority: "low" }, CAROL);
    });
    const search = async (args: Record<string, unknown>, user = ALICE) =>
      json<{ count: number; more?: boolean; tickets: Summary[]; note?: string }>(
        await call("search_tickets", args, run(user)),
      );
    const titles = (r: { tickets: Summary[] }) => r.tickets.map((t) => t.title);

    it("finds Chinese text inside a longer title", async () => {
      expect(titles(await search({ query: "打印机" }))).toEqual(["三楼打印机卡纸"]);
      expect(titles(await search({ query: "纸盒" }))).toEqual(["三楼打印机卡纸"]);
    });

    it("finds English case-insensitively in title or description; every word must match", async () => {
      expect(titles(await search({ query: "printer" }))).toEqual(["Printer toner low"]);
      expect(titles(await search({ query: "SHANGHAI" }))).toEqual(["VPN down"]);
      expect(titles(await search({ query: "printer 301" }))).toEqual(["Printer toner low"]);
      expect((await search({ query: "printer vpn" })).count).toBe(0);
    });

    it("treats LIKE wildcards in the query as plain characters", async () => {
      expect(titles(await search({ query: "100%" }))).toEqual(["Laptop battery"]);
      expect((await search({ query: "%" })).tickets.map((t) => t.ticket)).toEqual(["#3"]);
      expect((await search({ query: "_" })).count).toBe(0);
    });

    it("filters by status, assignee (mention) and creator ('me'); newest first; limit and more", async () => {
      expect(titles(await search({ assignee: `<@${BOB}>` }))).toEqual(["VPN down"]);
      expect(titles(await search({ assignee: "none", query: "printer" }))).toEqual(["Printer toner low"]);
      expect((await search({ assignee: "none" })).count).toBe(3);
      expect(titles(await search({ created_by: "me" }, BOB))).toEqual(["Laptop battery"]);
      expect(titles(await search({ created_by: CAROL, query: "toner" }))).toEqual(["Printer toner low"]);
      expect((await search({ status: "closed" })).count).toBe(0);
      const all = await search({});
      expect(all.tickets.map((t) => t.ticket)).toEqual(["#4", "#3", "#2", "#1"]);
      expect(all.more).toBe(false);
      const page = await search({ limit: 2 });
      expect(page).toMatchObject({ count: 2, more: true });
    });

    it("says when nothing matches; rejects a limit over 50 and a filter that is not a user", async () => {
      expect(await search({ query: "kubernetes" })).toEqual({
        count: 0,
        tickets: [],
        note: "No tickets match.",
      });
      const big = await call("search_tickets", { limit: 51 }, run(ALICE));
      expect(big.ok).toBe(false);
      expect(big.content).toContain("limit");
      const who = await call("search_tickets", { assignee: "bob" }, run(ALICE));
      expect(who.content).toContain('assignee "bob" is not a user');
    });
  });

  describe("update_ticket", () => {
    beforeEach(async () => {
      await create({ title: "Wifi flaky", assignee: BOB }); // #1 by Alice, assigned to Bob
    });
    const update = (args: Record<string, unknown>, user: string) => call("update_ticket", args, run(user));

    it("the creator and the assignee may update; moves follow the allowed transitions", async () => {
      const started = json(await update({ id: 1, status: "in_progress" }, BOB));
      expect(started).toMatchObject({ updated: "#1", changes: ["status open → in_progress"] });
      const closed = json(await update({ id: 1, status: "closed", comment: "Rebooted the AP" }, ALICE));
      expect(closed).toMatchObject({ changes: ["status in_progress → closed", "comment added"] });
      const reopened = json(await update({ id: 1, status: "open", priority: "high" }, ALICE));
      expect(reopened).toMatchObject({ ticket: { status: "open", priority: "high" } });
      const t = json<{ comments: Array<{ by: string; text: string; at: string }> }>(
        await call("get_ticket", { id: 1 }, run(CAROL)),
      );
      expect(t.comments).toEqual([{ by: ALICE, text: "Rebooted the AP", at: expect.any(String) }]);
    });

    it("refuses someone else's ticket for a user, and changes nothing; an admin may", async () => {
      const denied = await update({ id: 1, status: "closed" }, CAROL);
      expect(denied.ok).toBe(false);
      expect(denied.content).toContain(
        "Only the ticket's creator, its assignee or an admin may update ticket #1.",
      );
      const [row] = await execSql(store.handle.db, "SELECT status FROM tickets WHERE id = 1");
      expect(row!.status).toBe("open");
      const ok = json(await update({ id: 1, status: "closed" }, ADMIN));
      expect(ok).toMatchObject({ ticket: { status: "closed" } });
    });

    it("refuses bad transitions and same-to-same with a sentence naming the allowed moves", async () => {
      const same = await update({ id: 1, status: "open" }, ALICE);
      expect(same.content).toContain("Ticket #1 is already open; nothing to change.");
      await update({ id: 1, status: "closed" }, ALICE);
      const bad = await update({ id: 1, status: "in_progress" }, ALICE);
      expect(bad.ok).toBe(false);
      expect(bad.content).toContain(
        "Ticket #1 cannot go from closed to in_progress; from closed it can go to open.",
      );
    });

    it("reassigns to a known user, unassigns with 'none', refuses an unknown assignee", async () => {
      expect(json(await update({ id: 1, assignee: `<@${CAROL}>` }, BOB))).toMatchObject({
        changes: [`assignee ${BOB} → ${CAROL}`],
      });
      // Bob is no longer the assignee, so he may not touch it any more.
      expect((await update({ id: 1, priority: "low" }, BOB)).content).toContain("Only the ticket's creator");
      expect(json(await update({ id: 1, assignee: "none" }, ALICE))).toMatchObject({
        ticket: { assignee: null },
      });
      const unknown = await update({ id: 1, assignee: "U0NOBODY" }, ALICE);
      expect(unknown.content).toContain("there is no such Slack user");
    });

    it("a change made by someone else between the check and the write is refused, not overwritten", async () => {
      // The admin check is the pause between reading the ticket and writing it: close it meanwhile.
      const racing = toolCaller(
        createTicketTools({
          db: store.handle.db,
          slack: sandbox.slack,
          isAdmin: async () => {
            await execSql(store.handle.db, "UPDATE tickets SET status = 'closed' WHERE id = 1");
            return true;
          },
        }),
      );
      const result = await racing("update_ticket", { id: 1, status: "in_progress" }, run(ADMIN));
      expect(result.content).toContain("Ticket #1 was changed by someone else just now");
      const [row] = await execSql(store.handle.db, "SELECT status FROM tickets WHERE id = 1");
      expect(row!.status).toBe("closed");
    });

    it("clear errors: missing ticket, nothing to update, nothing changed", async () => {
      expect((await update({ id: 99, status: "closed" }, ADMIN)).content).toContain(
        "There is no ticket #99.",
      );
      expect((await update({ id: 1 }, ALICE)).content).toContain("Nothing to update on ticket #1");
      expect((await update({ id: 1, priority: "medium" }, ALICE)).content).toContain(
        "Nothing changed: ticket #1 already has those values.",
      );
    });
  });

  describe("delete_ticket", () => {
    it("is admin-level, always needs approval, is marked dangerous; deletes, or says the id is missing", async () => {
      const tool = tools.find((t) => t.name === "delete_ticket")!;
      expect(tool).toMatchObject({ level: "admin", approval: "always", dangerous: true });
      await create({ title: "Duplicate of #1" });
      expect((await call("delete_ticket", { id: 1 }, run(ADMIN))).content).toBe(
        'Deleted ticket #1 "Duplicate of #1".',
      );
      expect((await call("delete_ticket", { id: 1 }, run(ADMIN))).content).toContain(
        "There is no ticket #1.",
      );
    });
  });

  it("policy over these tools: levels and approvals per the design table", async () => {
    const decide = async (level: "viewer" | "user" | "admin", name: string) => {
      const { hook } = createPolicy({ tools, level });
      const tool = tools.find((t) => t.name === name)!;
      const call = { id: "call_1", name, arguments: '{"id":1}' };
      return (await hook({ tool, args: { id: 1 }, call, run: run(ALICE), approved: false })).action;
    };
    expect(await decide("viewer", "search_tickets")).toBe("allow");
    expect(await decide("viewer", "get_ticket")).toBe("allow");
    expect(await decide("viewer", "create_ticket")).toBe("deny");
    expect(await decide("user", "update_ticket")).toBe("allow");
    expect(await decide("user", "delete_ticket")).toBe("deny");
    expect(await decide("admin", "delete_ticket")).toBe("needs_approval");
  });
});
