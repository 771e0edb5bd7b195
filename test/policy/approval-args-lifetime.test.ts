import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argsSha256 } from "../../src/core/args-hash.ts";
import { type ApprovalStore, createApprovalStore } from "../../src/policy/approval-store.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { approvalInput, REQUESTER } from "../helpers/approvals.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const ADMIN = "U0ADMIN";
const EMAIL = "ops@example.com";
const SECRET = "configured-secret-value-42";

/**
 * An approval holds the raw arguments of its call only while it is pending; the statement that
 * decides or expires it keeps their redacted copy (patterns and configured secret values). It is
 * bound to its call by the audit key's HMAC of the call hash, never the plain hash, and a row still
 * carrying a plain hash (stored by an older version, or forged) decides nothing.
 */
describe.each(DRIVERS)("approval arguments' lifetime on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  let approvals: ApprovalStore;
  let clock = Date.now();
  const redactSecret = (value: unknown): unknown =>
    JSON.parse(JSON.stringify(value).replaceAll(SECRET, "[secret]"));
  const input = () =>
    approvalInput({
      args: { channel: "C0GENERAL", text: `Deploy done, ping ${EMAIL}, token ${SECRET}` },
    });

  beforeAll(async () => {
    store = await openTestStore(kind);
    audit = createAuditLog({ db: store.handle.db, key: createAuditKey("k".repeat(40)) });
    approvals = createApprovalStore({
      db: store.handle.db,
      audit,
      ttlSeconds: 900,
      now: () => new Date(clock),
      redact: redactSecret,
    });
  });
  afterAll(() => store?.cleanup());

  const rowText = async (id: string) =>
    (
      await execSql<{ j: string }>(
        store.handle.db,
        `SELECT row_to_json(a)::text AS j FROM approvals a WHERE id = '${id}'`,
      )
    )[0]!.j;

  it("binds the call by its keyed hash, and keeps the raw args only while pending", async () => {
    const req = input();
    const plain = argsSha256(req.tool, req.args);
    const created = await approvals.create(req);
    expect(created.args).toEqual(req.args);
    expect(created.argsSha256).toBe(audit.argsMac(plain));
    expect(approvals.binding(req.tool, req.args)).toBe(created.argsSha256);
    expect(await rowText(created.id)).not.toContain(plain);

    const result = await approvals.decide({
      approvalId: created.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
      expectedArgsSha256: plain,
    });
    expect(result.kind).toBe("decided");
    const stored = await rowText(created.id);
    for (const raw of [EMAIL, SECRET, plain]) expect(stored).not.toContain(raw);
    expect((await approvals.get(created.id))?.args).toEqual({
      channel: "C0GENERAL",
      text: "Deploy done, ping [email], token [secret]",
    });
    const decided = await approvals.decisionsForRun(req.runId);
    expect(decided.decisions[req.toolCallId]).toEqual({
      status: "approved",
      by: REQUESTER,
      argsSha256: created.argsSha256,
    });
  });

  it("a rejection and an expiry redact the args too", async () => {
    const rejected = await approvals.create(input());
    await approvals.decide({
      approvalId: rejected.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "rejected",
    });
    const expiring = await approvals.create(input());
    clock += 901_000;
    expect((await approvals.expireDue()).map((a) => a.id)).toContain(expiring.id);
    for (const id of [rejected.id, expiring.id]) {
      const text = await rowText(id);
      expect(text).not.toContain(EMAIL);
      expect(text).not.toContain(SECRET);
      expect(text).toContain("[email]");
    }
  });

  it("a plain hash in the row binds nothing: the click is refused, and expiry keys it", async () => {
    const req = input();
    const legacy = await approvals.create(req);
    const plain = argsSha256(req.tool, req.args);
    await execSql(store.handle.db, `UPDATE approvals SET args_sha256 = '${plain}' WHERE id = '${legacy.id}'`);
    const click = await approvals.decide({
      approvalId: legacy.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(click).toMatchObject({
      kind: "args_mismatch",
      reason: expect.stringContaining("cannot be verified"),
    });
    expect((await approvals.get(legacy.id))?.status).toBe("pending");

    clock += 901_000;
    await approvals.expireDue();
    const expired = (await approvals.get(legacy.id))!;
    expect(expired.status).toBe("expired");
    expect(expired.argsSha256).toBe(audit.argsMac(plain));
    const text = await rowText(legacy.id);
    for (const raw of [EMAIL, SECRET, plain]) expect(text).not.toContain(raw);

    // Rejecting runs nothing: allowed, and the row is settled the same way.
    const other = await approvals.create(req);
    await execSql(store.handle.db, `UPDATE approvals SET args_sha256 = '${plain}' WHERE id = '${other.id}'`);
    const rejected = await approvals.decide({
      approvalId: other.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "rejected",
    });
    expect(rejected.kind).toBe("decided");
    expect((await approvals.get(other.id))?.argsSha256).toBe(audit.argsMac(plain));
    for (const raw of [EMAIL, SECRET, plain]) expect(await rowText(other.id)).not.toContain(raw);
  });

  it("a late click on a row the migration cleared is told and audited, naming no binding", async () => {
    const created = await approvals.create(input());
    await approvals.decide({
      approvalId: created.id,
      deciderId: ADMIN,
      deciderLevel: "admin",
      decision: "approved",
    });
    await execSql(
      store.handle.db,
      `UPDATE approvals SET args = '{}'::jsonb, args_sha256 = 'cleared' WHERE id = '${created.id}'`,
    );
    const late = await approvals.decide({
      approvalId: created.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(late.kind).toBe("already_decided");
    const [row] = await execSql<{ args_sha256: string | null }>(
      store.handle.db,
      `SELECT args_sha256 FROM audit_log WHERE approval_id = '${created.id}' AND action = 'approval.ignored'`,
    );
    expect(row).toEqual({ args_sha256: null });
  });

  it("an approval whose args were edited and rebound with their plain hash is refused", async () => {
    const created = await approvals.create(input());
    const forged = { channel: "C0GENERAL", text: "wire the money" };
    await execSql(
      store.handle.db,
      `UPDATE approvals SET args = '${JSON.stringify(forged)}'::jsonb,
        args_sha256 = '${argsSha256("send_message", forged)}' WHERE id = '${created.id}'`,
    );
    const click = await approvals.decide({
      approvalId: created.id,
      deciderId: REQUESTER,
      deciderLevel: "user",
      decision: "approved",
    });
    expect(click.kind).toBe("args_mismatch");
    expect((await approvals.get(created.id))?.status).toBe("pending");
  });
});
