import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApprovalStore, createApprovalStore } from "../../src/policy/approval-store.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { approvalAuditRows, approvalInput, REQUESTER } from "../helpers/approvals.ts";
import { DRIVERS, openTestStore, type TestStore } from "../helpers/pg.ts";

const ADMIN = "U0ADMIN";

const input = approvalInput;

describe.each(DRIVERS)("approval lifecycle on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  let approvals: ApprovalStore;
  let clock = Date.now();
  beforeAll(async () => {
    store = await openTestStore(kind);
    audit = createAuditLog(store.handle);
    approvals = createApprovalStore({
      db: store.handle.db,
      audit,
      ttlSeconds: 900,
      now: () => new Date(clock),
    });
  });
  afterAll(() => store?.cleanup());

  const auditRows = (approvalId: string) => approvalAuditRows(store.handle.db, approvalId);

  it("setCard, listPending by session and run, decisionsForRun", async () => {
    const runId = "run_multi";
    const sessionKey = "T01:C0MULTI:1700000000.000200";
    const a = await approvals.create(input({ runId, sessionKey, toolCallId: "call_a" }));
    clock += 1;
    const b = await approvals.create(input({ runId, sessionKey, toolCallId: "call_b" }));
    expect(await approvals.setCard(a.id, { channel: "C0MULTI", ts: "1700000001.000100" })).toBe(true);
    expect(await approvals.setCard("apr_nope", { channel: "C0MULTI", ts: "1" })).toBe(false);
    expect(await approvals.get(a.id)).toMatchObject({ cardChannel: "C0MULTI", cardTs: "1700000001.000100" });
    expect((await approvals.listPending({ sessionKey })).map((r) => r.id)).toEqual([a.id, b.id]);
    expect((await approvals.listPending({ runId })).map((r) => r.id)).toEqual([a.id, b.id]);

    await approvals.decide({
      approvalId: a.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    const half = await approvals.decisionsForRun(runId);
    expect(half.decisions).toEqual({
      call_a: { status: "approved", by: REQUESTER, argsSha256: a.argsSha256 },
    });
    expect(half.pending.map((r) => r.id)).toEqual([b.id]);

    await approvals.decide({
      approvalId: b.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "rejected",
    });
    const all = await approvals.decisionsForRun(runId);
    expect(all).toEqual({
      decisions: {
        call_a: { status: "approved", by: REQUESTER, argsSha256: a.argsSha256 },
        call_b: { status: "rejected", by: ADMIN, argsSha256: b.argsSha256 },
      },
      pending: [],
    });
    expect(await approvals.listPending({ runId })).toEqual([]);
    expect((await approvals.listForRun(runId)).map((r) => [r.id, r.status])).toEqual([
      [a.id, "approved"],
      [b.id, "rejected"],
    ]);
    expect(await approvals.listForRun("run_none")).toEqual([]);
  });

  it("expired (injected clock): marked expired with tool.expired; a later click never decides it", async () => {
    const approval = await approvals.create(input());
    clock += 901_000;
    const listed = await approvals.listPending({ runId: approval.runId ?? "" });
    expect(listed).toEqual([]); // past due: no longer offered, even before a sweep
    const click = await approvals.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(click).toMatchObject({ kind: "expired", approval: { status: "expired", decidedBy: null } });
    const later = await approvals.decide({
      approvalId: approval.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "approved",
    });
    expect(later).toMatchObject({ kind: "already_decided", approval: { status: "expired" } });
    expect((await auditRows(approval.id)).map((r) => r.action)).toEqual([
      "tool.approval_requested",
      "tool.expired",
      "approval.ignored", // the admin's late click
    ]);
    expect((await approvals.decisionsForRun(approval.runId ?? "")).decisions).toEqual({
      [approval.toolCallId ?? ""]: { status: "expired", argsSha256: approval.argsSha256 },
    });
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("expires on the database clock too (no injected clock)", async () => {
    const quick = createApprovalStore({ db: store.handle.db, audit, ttlSeconds: 0.3 });
    const approval = await quick.create(input());
    expect(approval.expiresAt.getTime() - approval.createdAt.getTime()).toBe(300);
    await new Promise((r) => setTimeout(r, 400));
    expect((await quick.listPending({ runId: approval.runId ?? "" })).length).toBe(0);
    const swept = await quick.expireDue();
    expect(swept.map((r) => r.id)).toContain(approval.id);
    const click = await quick.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(click).toMatchObject({ kind: "already_decided", approval: { status: "expired" } });
  });
});
