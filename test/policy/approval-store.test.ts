import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argsSha256 } from "../../src/core/args-hash.ts";
import { type ApprovalStore, createApprovalStore } from "../../src/policy/approval-store.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { approvalAuditRows, approvalInput, REQUESTER } from "../helpers/approvals.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const OTHER = "U0OTHER";
const ADMIN = "U0ADMIN";

const input = approvalInput;

describe.each(DRIVERS)("approval store on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  let approvals: ApprovalStore;
  const clock = Date.now();
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

  it("creates a pending approval bound to the call, with its audit row (args redacted there only)", async () => {
    const req = input({ approvers: "admin", reason: "posts to a channel" });
    const approval = await approvals.create(req);
    expect(approval).toMatchObject({
      status: "pending",
      tool: "send_message",
      args: req.args,
      // Keyed as in the audit log: the plain hash of the call is never stored.
      argsSha256: audit.argsMac(argsSha256(req.tool, req.args)),
      requesterId: REQUESTER,
      runId: req.runId,
      toolCallId: req.toolCallId,
      approvers: "admin",
      reason: "posts to a channel",
      decidedBy: null,
    });
    expect(approval.id).toMatch(/^apr_[A-Za-z0-9_-]{22}$/);
    expect(approval.expiresAt.getTime() - approval.createdAt.getTime()).toBe(900_000);
    const rows = await auditRows(approval.id);
    expect(rows).toMatchObject([{ action: "tool.approval_requested", actor_id: null }]);
    expect(JSON.stringify(rows[0]?.args)).toContain("[email]");
    expect(JSON.stringify(rows[0]?.args)).not.toContain("ops@example.com");
    expect(await approvals.get(approval.id)).toEqual(approval);
  });

  it("creates nothing when the caller's transaction rolls back", async () => {
    const req = input();
    await expect(
      store.handle.db.transaction(async (tx) => {
        await approvals.create(req, tx);
        throw new Error("card could not be posted");
      }),
    ).rejects.toThrow("card could not be posted");
    expect(await approvals.listPending({ runId: req.runId })).toEqual([]);
    const rows = await execSql(store.handle.db, `SELECT 1 FROM audit_log WHERE run_id = '${req.runId}'`);
    expect(rows).toEqual([]);
  });

  it("requester_or_admin: another user is refused and audited, nothing changes; an admin decides", async () => {
    const approval = await approvals.create(input());
    const refused = await approvals.decide({
      approvalId: approval.id,
      deciderId: OTHER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(refused).toMatchObject({
      kind: "refused",
      reason: "only the requester or an admin may decide this",
    });
    expect((await approvals.get(approval.id))?.status).toBe("pending");

    const decided = await approvals.decide({
      approvalId: approval.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "rejected",
    });
    expect(decided).toMatchObject({ kind: "decided", approval: { status: "rejected", decidedBy: ADMIN } });
    expect(await auditRows(approval.id)).toMatchObject([
      { action: "tool.approval_requested" },
      {
        action: "tool.denied",
        actor_id: OTHER,
        error: expect.stringContaining("only the requester or an admin"),
      },
      { action: "tool.rejected", actor_id: ADMIN, error: null },
    ]);
  });

  it("the requester may decide their own call by default", async () => {
    const approval = await approvals.create(input());
    const result = await approvals.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "viewer",
      decision: "approved",
    });
    expect(result).toMatchObject({ kind: "decided", approval: { status: "approved", decidedBy: REQUESTER } });
  });

  it("four-eyes (not_requester): the requester is refused even as an admin; someone else decides", async () => {
    const approval = await approvals.create(input({ approvers: "not_requester" }));
    const own = await approvals.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "admin",
      decision: "approved",
    });
    expect(own).toMatchObject({ kind: "refused", reason: expect.stringContaining("four-eyes") });
    const other = await approvals.decide({
      approvalId: approval.id,
      deciderId: OTHER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(other).toMatchObject({ kind: "decided", approval: { decidedBy: OTHER } });
  });

  it("admin rule: the requester who is not an admin is refused", async () => {
    const approval = await approvals.create(input({ approvers: "admin" }));
    const result = await approvals.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(result).toMatchObject({ kind: "refused", reason: "only an admin may decide this" });
  });

  it("an unknown approvers rule in the row decides nothing (fail closed)", async () => {
    const approval = await approvals.create(input());
    await execSql(store.handle.db, `UPDATE approvals SET approvers = 'anyone' WHERE id = '${approval.id}'`);
    const result = await approvals.decide({
      approvalId: approval.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "approved",
    });
    expect(result).toMatchObject({ kind: "refused", reason: 'unknown approvers rule "anyone"' });
  });

  it("changed stored args, or a different expected hash → args_mismatch, audited, still pending", async () => {
    const approval = await approvals.create(input());
    const expectedArgsSha256 = approval.argsSha256;
    await execSql(
      store.handle.db,
      `UPDATE approvals SET args = '{"channel":"C0GENERAL","text":"rm -rf"}' WHERE id = '${approval.id}'`,
    );
    const changed = await approvals.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
      expectedArgsSha256,
    });
    expect(changed).toMatchObject({
      kind: "args_mismatch",
      reason: expect.stringContaining("stored arguments"),
    });

    const other = await approvals.create(input());
    const stale = await approvals.decide({
      approvalId: other.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
      expectedArgsSha256: argsSha256("send_message", { channel: "C0GENERAL", text: "something else" }),
    });
    expect(stale).toMatchObject({ kind: "args_mismatch", reason: expect.stringContaining("changed since") });
    for (const id of [approval.id, other.id]) {
      expect((await approvals.get(id))?.status).toBe("pending");
      expect((await auditRows(id)).map((r) => [r.action, r.actor_id])).toEqual([
        ["tool.approval_requested", null],
        ["tool.denied", REQUESTER],
      ]);
    }
  });

  it("a decided approval is single-use: a second click is already_decided, by whom and when", async () => {
    const approval = await approvals.create(input());
    const first = await approvals.decide({
      approvalId: approval.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    const second = await approvals.decide({
      approvalId: approval.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "rejected",
    });
    expect(first.kind).toBe("decided");
    expect(second).toMatchObject({
      kind: "already_decided",
      approval: { status: "approved", decidedBy: REQUESTER, decidedAt: expect.any(Date) },
    });
  });

  it("an unknown id is not_found", async () => {
    const result = await approvals.decide({
      approvalId: "apr_nope",
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "approved",
    });
    expect(result).toEqual({ kind: "not_found" });
  });
});
