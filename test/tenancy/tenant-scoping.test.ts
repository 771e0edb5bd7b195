/**
 * Two workspaces on one Postgres: tickets, memories, schedules, runs, channel budgets, approvals and
 * the audit log's readers never cross. Another team's ticket, schedule or run reads exactly as a
 * missing one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { LEGACY_TENANT, tenantKey } from "../../src/core/tenant.ts";
import type { Approval } from "../../src/policy/approval-store.ts";
import { createScheduleStore, type ScheduleStore } from "../../src/schedules/schedule-store.ts";
import { decidableApprovals } from "../../src/slack/commands/approvals-blocks.ts";
import { scheduleAnswer } from "../../src/slack/commands/schedule-answer.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { createBudgetStore } from "../../src/store/budget-store.ts";
import { createRunQuery } from "../../src/store/run-query.ts";
import { createMemoryTools } from "../../src/tools/memory/memory-tools.ts";
import type { Directory } from "../../src/tools/references/resolve-reference.ts";
import { createTicketTools } from "../../src/tools/tickets/ticket-tools.ts";
import { execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { json, run, type SlackSandbox, startSlackSandbox, toolCaller } from "../tools/tool-harness.ts";

const TEAM_A = "T0AAAAAAA";
const TEAM_B = "T0BBBBBBB";
const ALICE = "U0ALICE"; // of team A
const BOB = "U0BOB"; // of team B
const ADMIN = "U0ADMIN";

const inA = (user = ALICE) => run(user, { teamId: TEAM_A, sessionKey: `${TEAM_A}:C0OPS:1` });
const inB = (user = BOB) => run(user, { teamId: TEAM_B, sessionKey: `${TEAM_B}:C0OPS:1` });

describe("tenant scoping on postgres", () => {
  let store: TestStore;
  let sandbox: SlackSandbox;
  let call: ReturnType<typeof toolCaller>;

  beforeAll(async () => {
    store = await openTestStore("postgres");
    sandbox = await startSlackSandbox([
      { id: ALICE, name: "alice" },
      { id: BOB, name: "bob" },
    ]);
    const db = store.handle.db;
    call = toolCaller([
      ...createTicketTools({ db, slack: sandbox.slack, isAdmin: (id) => id === ADMIN }),
      ...createMemoryTools({ db }),
    ]);
  });
  afterAll(async () => {
    await sandbox?.stop();
    await store?.cleanup();
  });

  describe("tickets", () => {
    beforeEach(() => execSql(store.handle.db, "TRUNCATE tickets RESTART IDENTITY"));

    it("another team's ticket id is 'no such ticket' for get, update and delete, exactly as a missing one", async () => {
      const a = json<{ created: string }>(await call("create_ticket", { title: "VPN down" }, inA()));
      expect(a.created).toBe("#1");
      const missing = await call("get_ticket", { id: 99 }, inB());
      const other = await call("get_ticket", { id: 1 }, inB());
      expect(missing).toMatchObject({
        ok: false,
        content: expect.stringContaining("There is no ticket #99."),
      });
      expect(other).toMatchObject({ ok: false, content: expect.stringContaining("There is no ticket #1.") });
      expect(other.content.replace("#1", "#99")).toBe(missing.content);

      // Even an admin of team B: update and delete see no ticket #1.
      const update = await call("update_ticket", { id: 1, status: "closed" }, inB(ADMIN));
      expect(update).toMatchObject({ ok: false, content: expect.stringContaining("There is no ticket #1.") });
      const removed = await call("delete_ticket", { id: 1 }, inB(ADMIN));
      expect(removed).toMatchObject({
        ok: false,
        content: expect.stringContaining("There is no ticket #1."),
      });

      // Team A's ticket is untouched, and its own team still reaches it.
      const got = json<{ status: string; title: string }>(await call("get_ticket", { id: 1 }, inA()));
      expect(got).toMatchObject({ title: "VPN down", status: "open" });
      expect(await execSql(store.handle.db, "SELECT team_id, status FROM tickets")).toEqual([
        { team_id: TEAM_A, status: "open" },
      ]);
    });

    it("search lists only the team's own tickets", async () => {
      await call("create_ticket", { title: "printer jam A" }, inA());
      await call("create_ticket", { title: "printer jam B" }, inB());
      await call("create_ticket", { title: "printer toner A" }, inA());
      const a = json<{ tickets: Array<{ title: string }> }>(
        await call("search_tickets", { query: "printer" }, inA()),
      );
      const b = json<{ tickets: Array<{ title: string }> }>(
        await call("search_tickets", { query: "printer" }, inB()),
      );
      expect(a.tickets.map((t) => t.title)).toEqual(["printer toner A", "printer jam A"]);
      expect(b.tickets.map((t) => t.title)).toEqual(["printer jam B"]);
      const all = json<{ count: number }>(await call("search_tickets", {}, inB()));
      expect(all.count).toBe(1);
    });

    it("a run without a team reaches only the tickets without one", async () => {
      await call("create_ticket", { title: "legacy" }, run(ALICE, { teamId: undefined }));
      await call("create_ticket", { title: "team A" }, inA());
      const none = json<{ tickets: Array<{ title: string }> }>(
        await call("search_tickets", {}, run(ALICE, { teamId: undefined })),
      );
      expect(none.tickets.map((t) => t.title)).toEqual(["legacy"]);
      expect(await execSql(store.handle.db, "SELECT team_id FROM tickets ORDER BY id")).toEqual([
        { team_id: LEGACY_TENANT },
        { team_id: TEAM_A },
      ]);
    });
  });

  describe("memories", () => {
    beforeEach(() => execSql(store.handle.db, "TRUNCATE memories RESTART IDENTITY"));

    it("recall finds only the team's own memories, personal and channel-wide", async () => {
      // The same user id and channel id in both teams: only the team tells them apart.
      const a = run(ALICE, { teamId: TEAM_A });
      const b = run(ALICE, { teamId: TEAM_B });
      await call("remember", { fact: "The VPN gateway is vpn-a.example.com" }, a);
      await call(
        "remember",
        { fact: "The VPN gateway of the ops channel is vpn-ops-a.example.com", scope: "channel" },
        a,
      );
      await call("remember", { fact: "The VPN gateway is vpn-b.example.com" }, b);
      const inTeamA = await call("recall", { query: "vpn gateway" }, a);
      const inTeamB = await call("recall", { query: "*" }, b);
      expect(inTeamA.content).toContain("vpn-a.example.com");
      expect(inTeamA.content).toContain("vpn-ops-a.example.com");
      expect(inTeamA.content).not.toContain("vpn-b.example.com");
      expect(inTeamB.content).toContain("vpn-b.example.com");
      expect(inTeamB.content).not.toContain("vpn-a");
      expect(inTeamB.content).not.toContain("vpn-ops-a");
      // The same fact in another team is stored again, not "already remembered".
      const again = await call("remember", { fact: "The VPN gateway is vpn-a.example.com" }, b);
      expect(again.content).toContain("Remembered for you only");
    });
  });

  describe("schedules", () => {
    let schedules: ScheduleStore;
    beforeAll(() => {
      schedules = createScheduleStore({ db: store.handle.db });
    });
    beforeEach(() => execSql(store.handle.db, "TRUNCATE schedules RESTART IDENTITY CASCADE"));

    const directory = {} as Directory;
    const answer = (teamId: string, text: string) =>
      scheduleAnswer({ schedules }, { text, userId: ADMIN, teamId, logger: silentLogger(), directory });

    it("/hermes schedule list and remove reach only the asking team's schedules", async () => {
      const base = { cron: "0 9 * * 1-5", channelId: "C0OPS", ownerId: ADMIN };
      const a = await schedules.add({ ...base, teamId: TEAM_A, prompt: "summarize team A" });
      await schedules.add({ ...base, teamId: TEAM_B, prompt: "summarize team B" });

      const listA = await answer(TEAM_A, "schedule list");
      expect(listA).toContain("summarize team A");
      expect(listA).not.toContain("summarize team B");
      expect(await answer(TEAM_B, "schedule list")).not.toContain("summarize team A");

      // Team B's admin removing team A's schedule: "no such schedule", and it stays.
      expect(await answer(TEAM_B, `schedule remove ${a.id}`)).toBe(`There is no schedule ${a.id}.`);
      expect(await schedules.get(a.id, TEAM_A)).toMatchObject({ id: a.id, teamId: TEAM_A });
      expect(await schedules.get(a.id, TEAM_B)).toBeUndefined();
      expect(await answer(TEAM_A, `schedule remove ${a.id}`)).toContain("Removed schedule");

      // The scheduler sees every team's, each with the team it fires in.
      expect((await schedules.list({ enabledOnly: true })).map((s) => s.teamId)).toEqual([TEAM_B]);
    });
  });

  describe("runs", () => {
    beforeEach(async () => {
      await execSql(store.handle.db, "TRUNCATE runs");
      await execSql(
        store.handle.db,
        `INSERT INTO runs (id, session_key, snapshot, user_id, team_id, channel_id, request_text) VALUES
          ('run_a', '${TEAM_A}:C0OPS:1', '{}', '${ALICE}', '${TEAM_A}', 'C0OPS', 'team A asks'),
          ('run_b', '${TEAM_B}:C0OPS:1', '{}', '${BOB}', '${TEAM_B}', 'C0OPS', 'team B asks'),
          ('run_old', 'T0:C0OPS:1', '{}', '${ALICE}', NULL, 'C0OPS', 'no team')`,
      );
    });

    it("lists and reads only the team's runs; another team's run reads as missing", async () => {
      const runs = createRunQuery({ db: store.handle.db });
      expect((await runs.list({ team: TEAM_A })).map((r) => r.runId)).toEqual(["run_a"]);
      expect((await runs.list({ team: TEAM_B })).map((r) => r.runId)).toEqual(["run_b"]);
      expect((await runs.list({ team: LEGACY_TENANT })).map((r) => r.runId)).toEqual(["run_old"]);
      expect(await runs.get("run_a", { team: TEAM_B })).toBeUndefined();
      expect(await runs.get("run_a", { team: TEAM_A })).toMatchObject({ runId: "run_a" });
      // The same user, in another team: still nothing.
      expect(await runs.get("run_a", { team: TEAM_B, requester: ALICE })).toBeUndefined();
    });
  });

  describe("channel budgets", () => {
    it("each team sets, reads and lists its own limit of a channel; reservations use the run's team", async () => {
      const audit = createAuditLog(store.handle);
      const budgets = createBudgetStore({
        db: store.handle.db,
        defaults: { userTokensPerDay: 0, channelTokensPerDay: 0 },
        audit,
      });
      const change = (team: string, tokensPerDay: number) =>
        budgets.setLimit(
          { scope: "channel", id: "C0SHARED", tokensPerDay, by: ADMIN, team },
          { action: "budget.changed", tool: "/hermes", actorId: ADMIN, teamId: team, args: { tokensPerDay } },
        );
      await change(TEAM_A, 1000);
      await change(TEAM_B, 50);
      expect(await budgets.limit("channel", "C0SHARED", TEAM_A)).toEqual({
        tokensPerDay: 1000,
        overridden: true,
      });
      expect(await budgets.limit("channel", "C0SHARED", TEAM_B)).toEqual({
        tokensPerDay: 50,
        overridden: true,
      });
      expect(await budgets.overrides(10, TEAM_A)).toEqual([
        { scope: "channel", id: "C0SHARED", tokensPerDay: 1000 },
      ]);
      expect(await budgets.overrides(10, "T0OTHER")).toEqual([]);

      // Team A's run has room for 500 tokens in that channel; team B's does not.
      const inTeam = (teamId: string) => ({ userId: ALICE, channelId: "C0SHARED", teamId });
      expect(await budgets.reserve(inTeam(TEAM_A), 500)).toMatchObject({ ok: true });
      expect(await budgets.reserve(inTeam(TEAM_B), 500)).toMatchObject({ ok: false, refusal: { limit: 50 } });

      // Clearing team B's limit leaves team A's.
      await budgets.setLimit(
        { scope: "channel", id: "C0SHARED", tokensPerDay: null, by: ADMIN, team: TEAM_B },
        { action: "budget.changed", tool: "/hermes", actorId: ADMIN, teamId: TEAM_B, args: {} },
      );
      expect(await budgets.limit("channel", "C0SHARED", TEAM_B)).toEqual({
        tokensPerDay: 0,
        overridden: false,
      });
      expect(await budgets.limit("channel", "C0SHARED", TEAM_A)).toEqual({
        tokensPerDay: 1000,
        overridden: true,
      });
    });
  });

  describe("audit and approvals readers", () => {
    let audit: AuditLog;
    beforeAll(() => {
      audit = createAuditLog(store.handle);
    });

    it("/hermes audit's query reads only the asking team's rows", async () => {
      await audit.append({ action: "tool.requested", tool: "get_ticket", userId: ALICE, teamId: TEAM_A });
      await audit.append({ action: "tool.requested", tool: "get_ticket", userId: BOB, teamId: TEAM_B });
      await audit.append({ action: "tool.requested", tool: "search_tickets", userId: ALICE, teamId: TEAM_A });
      const a = await audit.query({ team: TEAM_A, tool: "get_ticket" });
      const b = await audit.query({ team: TEAM_B });
      expect(a.rows.map((r) => [r.teamId, r.userId])).toEqual([[TEAM_A, ALICE]]);
      expect(b.rows.every((r) => r.teamId === TEAM_B)).toBe(true);
      expect(b.rows.some((r) => r.userId === ALICE)).toBe(false);
    });

    it("pending approvals listed for one team never include another team's", async () => {
      const approval = (id: string, teamId: string | undefined) =>
        ({ id, teamId, requesterId: ALICE, approvers: "requester_or_admin" }) as unknown as Approval;
      const pending = [approval("apr_a", TEAM_A), approval("apr_b", TEAM_B), approval("apr_old", undefined)];
      const s = { approvals: { listPending: async () => pending } } as never;
      const admin = { userId: ADMIN, level: "admin" as const };
      expect((await decidableApprovals(s, admin, tenantKey(TEAM_A))).map((a) => a.id)).toEqual(["apr_a"]);
      expect((await decidableApprovals(s, admin, tenantKey(TEAM_B))).map((a) => a.id)).toEqual(["apr_b"]);
      expect((await decidableApprovals(s, admin, tenantKey(undefined))).map((a) => a.id)).toEqual([
        "apr_old",
      ]);
    });
  });
});
