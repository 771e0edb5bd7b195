import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { tenantKey } from "../../src/core/tenant.ts";
import { createApprovalStore } from "../../src/policy/approval-store.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { type AuditEvent, auditEventSchema, createAuditLog } from "../../src/store/audit.ts";
import { type AuditRow, auditRowHash, GENESIS_HASH, utcIso } from "../../src/store/audit-chain.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { sql } from "../../src/store/drizzle.ts";
import { auditLog } from "../../src/store/schema.ts";
import { startTestHermes, TEST_AUDIT_KEY, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

type Block = { type: string; elements?: Array<{ value?: string }> };

const CHANNEL = "C0OPS";
const botReplies = (t: TestHermes, ts: string) =>
  (t.thread(CHANNEL, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const cardOf = (t: TestHermes, ts: string) =>
  botReplies(t, ts).find((m) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions"));
const approvalIdOf = (card: SandboxMessage) =>
  (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * What a crash leaves behind, written while Hermes is down: one audit row, hash-chained like any other
 * onto its team's chain (the event normalized by the audit log's own schema), dated `ageMs` ago.
 */
async function appendAuditRowAsOf(
  handle: DatabaseHandle,
  event: AuditEvent,
  ageMs: number,
): Promise<AuditRow> {
  const parsed = auditEventSchema.parse(event);
  const chain = tenantKey(parsed.teamId);
  return handle.db.transaction(async (tx) => {
    const next = await tx.execute<{ id: string; created_at: string; prev_hash: string | null }>(
      sql`SELECT nextval(pg_get_serial_sequence('audit_log', 'id')) AS id,
                 ${utcIso(sql`(now() - make_interval(secs => ${ageMs / 1000}))`)} AS created_at,
                 (SELECT hash FROM audit_log WHERE chain_id = ${chain} ORDER BY id DESC LIMIT 1) AS prev_hash`,
    );
    const head = next.rows[0]!;
    const unhashed = {
      id: Number(head.id),
      createdAt: head.created_at,
      ...parsed,
      prevHash: head.prev_hash ?? GENESIS_HASH,
    };
    const row: AuditRow = { ...unhashed, hash: auditRowHash(unhashed) };
    await tx.insert(auditLog).values({ ...row, chainId: chain });
    return row;
  });
}

/**
 * Production mode (Postgres + Redis + BullMQ): Hermes is stopped and a new one is started on the same
 * database, Slack workspace and Redis prefix, as after a crash or a deploy.
 */
describe("restart recovery in production mode", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  /** A connection of our own, for what happens while Hermes is down. */
  let outside: DatabaseHandle;
  const restart = async (whileDown?: () => Promise<void>) => {
    await t.stopHermes();
    try {
      await whileDown?.();
    } finally {
      t = await startTestHermes({ model, reuse: t });
    }
  };
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis: true });
    outside = await openDatabase({
      databaseUrl: t.db.url,
      dataDir: "",
      logger: silentLogger(),
      maxConnections: 2,
    });
  }, 180_000);
  afterAll(async () => {
    await outside?.close();
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  const failedRows = async (callId: string) =>
    (await t.hermes.services.storage.audit.query({ action: "tool.failed", limit: 100 })).rows.filter(
      (r) => r.toolCallId === callId,
    );
  const interruptedNotes = (ts: string) =>
    botReplies(t, ts).filter((m) => m.text.includes("interrupted by a restart"));

  it("a call left without an outcome is marked failed (interrupted) at the next start and its thread is told; nothing is retried", async () => {
    // A real turn in a real thread, with a real tool call: run R.
    model.enqueue(
      toolCalls([{ name: "get_current_time", args: { timezone: "UTC" } }]),
      answer("It is noon."),
    );
    const d = await t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> time?" });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, ts).find((m) => m.text === "It is noon."), 30_000, "answer");
    const executed = (await t.hermes.services.storage.audit.query({ tool: "get_current_time", limit: 5 }))
      .rows[0]!;
    expect(executed.action).toBe("tool.executed");
    const runId = executed.runId!;
    const modelCalls = model.requests.length;
    const where = { userId: "U0USER1", teamId: executed.teamId, channelId: CHANNEL, threadTs: ts, runId };

    // The crash: Hermes died while executing a side-effecting call of run R (its `tool.requested` was
    // written, its outcome never was). In Redis mode the start-up pass only takes calls older than the
    // turn budget + 60 s (a younger one may be running on another replica right now), so the crash is
    // dated ten minutes back. A second, fresh unfinished call must be left alone by that rule.
    await restart(async () => {
      await appendAuditRowAsOf(
        outside,
        {
          ...where,
          action: "tool.requested",
          tool: "create_ticket",
          toolCallId: "call_crashed",
          args: { title: "VPN down", priority: "high" },
        },
        10 * 60_000,
      );
      await createAuditLog({ db: outside.db }).append({
        ...where,
        action: "tool.requested",
        tool: "create_ticket",
        toolCallId: "call_maybe_running_elsewhere",
        args: { title: "Printer jam" },
      });
    });

    const note = await waitFor(() => interruptedNotes(ts)[0], 30_000, "the thread is told");
    expect(note.text).toContain("`create_ticket`");
    expect(note.text).toContain("not retried");
    expect(note.text).toContain(runId);
    const failed = await failedRows("call_crashed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ error: "interrupted", tool: "create_ticket", runId, threadTs: ts });
    expect(await failedRows("call_maybe_running_elsewhere")).toEqual([]);
    // Never silently retried: no model call, no ticket; the chain (with the crash row) still verifies.
    await sleep(300);
    expect(model.requests).toHaveLength(modelCalls);
    const tickets = await t.hermes.services.storage.db.db.execute<{ n: number }>(
      sql`select count(*)::int as n from tickets`,
    );
    expect(tickets.rows[0]!.n).toBe(0);
    expect(interruptedNotes(ts)).toHaveLength(1);
    expect((await t.hermes.services.storage.audit.verify()).ok).toBe(true);

    // Another restart reconciles nothing twice.
    await restart();
    await sleep(500);
    expect(await failedRows("call_crashed")).toHaveLength(1);
    expect(interruptedNotes(ts)).toHaveLength(1);
  });

  it("Redis mode: a call too young to reconcile at start-up is reconciled by the periodic pass once it is old enough", async () => {
    // The start-up pass leaves calls younger than the turn budget + 60 s (another replica may be
    // running them). One that was young at start-up and has aged since — here: written by a replica
    // that died, dated past the budget — is found by the background sweep, not only at a restart.
    model.enqueue(toolCalls([{ name: "get_current_time", args: {} }]), answer("Tea time."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> time now?" });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, ts).find((m) => m.text === "Tea time."), 30_000, "answer");
    const executed = (await t.hermes.services.storage.audit.query({ tool: "get_current_time", limit: 1 }))
      .rows[0]!;
    await appendAuditRowAsOf(
      outside,
      {
        userId: "U0USER1",
        teamId: executed.teamId,
        channelId: CHANNEL,
        threadTs: ts,
        runId: executed.runId,
        action: "tool.requested",
        tool: "create_ticket",
        toolCallId: "call_aged_on_a_dead_replica",
        args: { title: "Aged" },
      },
      10 * 60_000,
    );
    const { reconcileInterruptedCalls } = await import("../../src/boot/background-work.ts");
    expect(await reconcileInterruptedCalls(t.hermes.services)).toBe(1);
    expect(await failedRows("call_aged_on_a_dead_replica")).toHaveLength(1);
    await waitFor(() => interruptedNotes(ts)[0], 30_000, "the thread is told");
    expect(await reconcileInterruptedCalls(t.hermes.services)).toBe(0);
    expect((await t.hermes.services.storage.audit.verify()).ok).toBe(true);
  });

  it("a run paused for approval whose approval was decided while Hermes was down resumes after the restart", async () => {
    const sent = () => t.ws.history("D0WANGLEI").filter((m) => m.text.includes("after the restart"));
    model.enqueue(
      toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text: "see you after the restart" } }]),
    );
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: CHANNEL,
      text: "<@U0HERMES> tell Wang Lei I'll see him after the restart",
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardOf(t, ts), 30_000, "approval card");
    const approvalId = approvalIdOf(card);
    const runId = (await t.hermes.services.storage.approvals.get(approvalId))!.runId!;
    expect(sent()).toHaveLength(0);

    // Decided while no Hermes runs (e.g. by another surface holding the deployment's audit key, which
    // binds approvals to their calls): only Postgres knows; no resume job exists.
    await restart(async () => {
      const approvals = createApprovalStore({
        db: outside.db,
        audit: createAuditLog({ db: outside.db, key: createAuditKey(TEST_AUDIT_KEY) }),
        ttlSeconds: 900,
      });
      const decided = await approvals.decide({
        approvalId,
        deciderId: "U0USER1",
        deciderLevel: "user",
        decision: "approved",
      });
      expect(decided.kind).toBe("decided");
      // …and a while ago: the sweep leaves a decision younger than 15 s to its click's own enqueue.
      await outside.db.execute(
        sql`UPDATE approvals SET decided_at = decided_at - interval '30 seconds' WHERE id = ${approvalId}`,
      );
      model.reset();
      model.enqueue(answer("Told Wang Lei, after the restart."));
    });

    await waitFor(
      () => botReplies(t, ts).find((m) => m.text === "Told Wang Lei, after the restart."),
      30_000,
      "answer after the restart",
    );
    expect(sent()).toHaveLength(1);
    // Resumed from the snapshot: one model call (the answer), which already has the tool's result.
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]!.body.messages.filter((m) => m.role === "tool")).toHaveLength(1);
    expect((await t.hermes.services.storage.runs.get(runId))?.status).toBe("completed");
    const updated = await waitFor(
      () => {
        const m = t.ws.getMessage(CHANNEL, card.ts);
        return m && JSON.stringify(m.blocks).includes("Result:") ? m : undefined;
      },
      30_000,
      "card outcome",
    );
    expect(((updated.blocks ?? []) as Block[]).some((b) => b.type === "actions")).toBe(false);
    expect(JSON.stringify(updated.blocks)).toContain("Approved by <@U0USER1>");
    const rows = (
      await t.hermes.services.storage.audit.query({ tool: "send_message", limit: 50 })
    ).rows.filter((r) => r.runId === runId);
    expect(rows.map((r) => r.action).sort()).toEqual(
      ["tool.approval_requested", "tool.approved", "tool.executed", "tool.requested"].sort(),
    );

    // A further restart neither resumes it again nor reports it as interrupted.
    await restart();
    await sleep(500);
    expect(sent()).toHaveLength(1);
    expect(model.requests).toHaveLength(1);
    expect(botReplies(t, ts).filter((m) => m.text.includes("interrupted"))).toEqual([]);
  });
});
