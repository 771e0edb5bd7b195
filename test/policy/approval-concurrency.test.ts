import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApprovalStore,
  type CreateApprovalInput,
  createApprovalStore,
} from "../../src/policy/approval-store.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const REQUESTER = "U0REQ";
let seq = 0;
const input = (): CreateApprovalInput => {
  seq++;
  return {
    tool: "delete_ticket",
    args: { id: seq },
    requesterId: REQUESTER,
    sessionKey: "T01:C01:1700000000.000100",
    runId: `run_${seq}`,
    toolCallId: `call_${seq}`,
  };
};

describe.each(DRIVERS)("approval races on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  let approvals: ApprovalStore;
  let clock = Date.now();
  const now = () => new Date(clock);
  beforeAll(async () => {
    // Several pooled connections on Postgres, so the clicks really race (PGlite is one connection).
    store = await openTestStore(kind, { maxConnections: 10 });
    audit = createAuditLog(store.handle);
    approvals = createApprovalStore({ db: store.handle.db, audit, ttlSeconds: 60, now });
  });
  afterAll(() => store?.cleanup());

  const countActions = async (approvalId: string) => {
    const rows = await execSql<{ action: string; n: string | number }>(
      store.handle.db,
      `SELECT action, count(*) AS n FROM audit_log WHERE approval_id = '${approvalId}' GROUP BY action`,
    );
    return Object.fromEntries(rows.map((r) => [r.action, Number(r.n)]));
  };

  it("50 concurrent clicks (approve and reject, requester and admins): exactly one winner", async () => {
    const approval = await approvals.create(input());
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        approvals.decide({
          approvalId: approval.id,
          deciderId: i % 3 === 0 ? REQUESTER : `U0ADMIN${i}`,
          deciderLevel: i % 3 === 0 ? "user" : "admin",
          decision: i % 2 === 0 ? "approved" : "rejected",
        }),
      ),
    );
    if (store.handle.kind === "postgres") expect(store.handle.pool.totalCount).toBeGreaterThan(1);
    const winners = results.filter((r) => r.kind === "decided");
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.kind === "already_decided")).toHaveLength(49);
    const winner = winners[0]?.kind === "decided" ? winners[0].approval : undefined;
    for (const r of results) {
      if (r.kind === "already_decided") {
        expect(r.approval).toMatchObject({ status: winner?.status, decidedBy: winner?.decidedBy });
      }
    }
    const outcome = winner?.status === "approved" ? "tool.approved" : "tool.rejected";
    // Every losing click is audited too: it changed nothing, and says so.
    expect(await countActions(approval.id)).toEqual({
      "tool.approval_requested": 1,
      [outcome]: 1,
      "approval.ignored": 49,
    });
    expect(await audit.verify()).toMatchObject({ ok: true });
  });

  it("many approvals decided at once from many clients: each has one winner", async () => {
    const many = await Promise.all(Array.from({ length: 20 }, () => approvals.create(input())));
    const results = await Promise.all(
      many.flatMap((a) =>
        Array.from({ length: 5 }, () =>
          approvals.decide({
            approvalId: a.id,
            deciderId: REQUESTER,
            deciderLevel: "user",
            decision: "approved",
          }),
        ),
      ),
    );
    expect(results.filter((r) => r.kind === "decided")).toHaveLength(20);
    expect(results.filter((r) => r.kind === "already_decided")).toHaveLength(80);
    const approved = await execSql<{ n: string | number }>(
      store.handle.db,
      `SELECT count(*) AS n FROM audit_log WHERE action = 'tool.approved'
        AND approval_id IN (${many.map((a) => `'${a.id}'`).join(", ")})`,
    );
    expect(Number(approved[0]?.n)).toBe(20);
  });

  it("clicks racing an expiry: one tool.expired, nobody decides it", async () => {
    const approval = await approvals.create(input());
    clock += 61_000;
    const results = await Promise.all([
      ...Array.from({ length: 10 }, () =>
        approvals.decide({
          approvalId: approval.id,
          deciderId: REQUESTER,
          deciderLevel: "user",
          decision: "approved",
        }),
      ),
      approvals.expireDue(),
    ]);
    const clicks = results.slice(0, 10) as Awaited<ReturnType<ApprovalStore["decide"]>>[];
    expect(clicks.every((r) => r.kind === "expired" || r.kind === "already_decided")).toBe(true);
    expect(clicks.filter((r) => r.kind === "decided")).toEqual([]);
    // The click that expired it is the tool.expired row; each later one is an ignored click.
    const late = clicks.filter((r) => r.kind === "already_decided").length;
    expect(await countActions(approval.id)).toEqual({
      "tool.approval_requested": 1,
      "tool.expired": 1,
      ...(late ? { "approval.ignored": late } : {}),
    });
    expect((await approvals.get(approval.id))?.status).toBe("expired");
  });

  it("expireDue from several replicas at once: one tool.expired per approval, each returned once", async () => {
    const due = await Promise.all(Array.from({ length: 30 }, () => approvals.create(input())));
    clock += 61_000;
    const late = await approvals.create(input()); // created now: not due yet
    const replicas = Array.from({ length: 3 }, () =>
      createApprovalStore({ db: store.handle.db, audit, ttlSeconds: 60, now }),
    );
    const swept = (await Promise.all(replicas.map((r) => r.expireDue()))).flat();
    const ids = swept.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(due.map((a) => a.id).sort());
    expect(ids).not.toContain(late.id);
    const rows = await execSql<{ approval_id: string; n: string | number }>(
      store.handle.db,
      `SELECT approval_id, count(*) AS n FROM audit_log WHERE action = 'tool.expired' GROUP BY approval_id`,
    );
    expect(rows.every((r) => Number(r.n) === 1)).toBe(true);
    expect(await approvals.expireDue()).toEqual([]);
    expect(await audit.verify()).toMatchObject({ ok: true });
  });
});
