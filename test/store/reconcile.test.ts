import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/agent/context/messages.ts";
import { SNAPSHOT_VERSION } from "../../src/agent/run/snapshot.ts";
import { argsSha256 } from "../../src/core/args-hash.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { reconcileInterrupted } from "../../src/store/reconcile.ts";
import { createRunStore } from "../../src/store/run-store.ts";
import type { AuditAction } from "../../src/store/schema.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const where = { teamId: "T01", channelId: "C0OPS", threadTs: "1700000000.000100" };

describe.each(DRIVERS)("crash reconciliation on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 8 });
    audit = createAuditLog(store.handle);
  });
  afterAll(() => store?.cleanup());

  const events = async (runId: string, callId: string, actions: AuditAction[]) => {
    const args = { id: callId };
    for (const action of actions) {
      await audit.append({
        action,
        tool: "delete_ticket",
        userId: "U0REQ",
        ...where,
        runId,
        toolCallId: callId,
        args,
        argsSha256: argsSha256("delete_ticket", args),
        ...(action === "tool.approved" ? { actorId: "U0ADMIN" } : {}),
      });
    }
  };
  const failedRows = (callId: string) =>
    execSql<{ error: string }>(
      store.handle.db,
      `SELECT error FROM audit_log WHERE tool_call_id = '${callId}' AND action = 'tool.failed'`,
    );

  it("marks requested-or-approved calls without an outcome as interrupted, once, even when run twice at once", async () => {
    await events("run_a", "call_crashed", ["tool.requested"]);
    await events("run_a", "call_done", ["tool.requested", "tool.executed"]);
    await events("run_b", "call_waiting", ["tool.requested", "tool.approval_requested"]);
    await events("run_b", "call_rejected", ["tool.requested", "tool.approval_requested", "tool.rejected"]);
    await events("run_c", "call_approved", ["tool.requested", "tool.approval_requested", "tool.approved"]);
    // A paused run resumes its approved call itself: not interrupted.
    await events("run_p", "call_paused", ["tool.requested", "tool.approval_requested", "tool.approved"]);
    await createRunStore(store.handle).savePaused({
      version: SNAPSHOT_VERSION,
      run: { runId: "run_p", sessionKey: "T01:C0OPS:1700000000.000100", userId: "U0REQ" },
      messages: [],
      pending: [],
      step: 1,
      usage: emptyUsage(),
      modelCalls: 1,
      failures: {},
      truncations: 0,
    });

    // Too recent for a 1-minute threshold: a worker may still be running them.
    expect(await reconcileInterrupted({ db: store.handle.db, audit, olderThanMs: 60_000 })).toEqual([]);

    const runs = await Promise.all([
      reconcileInterrupted({ db: store.handle.db, audit, olderThanMs: 0 }),
      reconcileInterrupted({ db: store.handle.db, audit, olderThanMs: 0 }),
    ]);
    const found = runs.flat().sort((x, y) => x.toolCallId.localeCompare(y.toolCallId));
    expect(found).toMatchObject([
      {
        runId: "run_c",
        toolCallId: "call_approved",
        tool: "delete_ticket",
        lastAction: "tool.approved",
        ...where,
      },
      { runId: "run_a", toolCallId: "call_crashed", userId: "U0REQ", lastAction: "tool.requested", ...where },
    ]);
    expect(await failedRows("call_crashed")).toEqual([{ error: "interrupted" }]);
    expect(await failedRows("call_approved")).toEqual([{ error: "interrupted" }]);
    for (const untouched of ["call_done", "call_waiting", "call_rejected", "call_paused"]) {
      expect(await failedRows(untouched)).toEqual([]);
    }
    expect(await reconcileInterrupted({ db: store.handle.db, audit, olderThanMs: 0 })).toEqual([]);
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("copies the call's redacted args and hash onto the failed row", async () => {
    await events("run_d", "call_copy", ["tool.requested"]);
    const [found] = await reconcileInterrupted({ db: store.handle.db, audit, olderThanMs: 0 });
    const [row, requested] = (await audit.query({ limit: 2 })).rows;
    expect(row).toMatchObject({
      id: found?.auditId,
      action: "tool.failed",
      args: { id: "call_copy" },
      // The requested row's keyed value, as it was (not keyed a second time).
      argsSha256: requested?.argsSha256,
      error: "interrupted",
    });
    expect(requested).toMatchObject({ action: "tool.requested", toolCallId: "call_copy" });
    expect(row?.argsSha256).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
  });
});
