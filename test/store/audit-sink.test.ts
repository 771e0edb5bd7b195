import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolEventSink } from "../../src/agent/run/policy-hook.ts";
import { argsSha256 } from "../../src/core/args-hash.ts";
import { redact } from "../../src/policy/redact.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { createAuditKey } from "../../src/store/audit-key.ts";
import { createAuditSink, MAX_RESULT_SUMMARY } from "../../src/store/audit-sink.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const run = {
  runId: "run_sink",
  sessionKey: "T01:C0OPS:1700000000.000100",
  userId: "U0REQ",
  teamId: "T01",
  channelId: "C0OPS",
  threadTs: "1700000000.000100",
};
const rawArgs = {
  to: "li.wei@example.com",
  text: "Call me on +86 138 0013 8000 and charge 4111 1111 1111 1111",
  card: "4111111111111111",
  phone: 8613800138000,
};
const key = createAuditKey("audit-sink-test-key-of-32-characters");
const RAW = ["li.wei@example.com", "138 0013 8000", "13800138000", "4111 1111 1111 1111", "4111111111111111"];

describe.each(DRIVERS)("audit sink on %s", (kind) => {
  let store: TestStore;
  let audit: AuditLog;
  let sink: ToolEventSink;
  beforeAll(async () => {
    store = await openTestStore(kind);
    audit = createAuditLog({ db: store.handle.db, key });
    sink = createAuditSink({ audit, redact });
  });
  afterAll(() => store?.cleanup());

  it("writes one row per event, with who/where/what and no raw PII anywhere in the row", async () => {
    const hash = argsSha256("send_message", rawArgs);
    const base = { run, callId: "call_1", tool: "send_message", args: rawArgs, argsSha256: hash };
    await sink({ ...base, action: "tool.requested" });
    await sink({
      ...base,
      action: "tool.executed",
      durationMs: 42.4,
      resultSummary: "sent to li.wei@example.com (+86 138 0013 8000)",
    });
    await sink({ ...base, action: "tool.failed", error: "card 4111 1111 1111 1111 declined", durationMs: 3 });
    await sink({ ...base, action: "tool.denied", reason: "li.wei@example.com is not in C0OPS" });

    const rows = await execSql<{ row: string }>(
      store.handle.db,
      "SELECT audit_log::text AS row FROM audit_log",
    );
    expect(rows).toHaveLength(4);
    for (const { row } of rows) for (const raw of [...RAW, hash]) expect(row).not.toContain(raw);

    const { rows: stored } = await audit.query({ limit: 10 });
    const [denied, failed, executed, requested] = stored;
    expect(requested).toMatchObject({
      action: "tool.requested",
      tool: "send_message",
      userId: "U0REQ",
      teamId: "T01",
      channelId: "C0OPS",
      threadTs: "1700000000.000100",
      runId: "run_sink",
      toolCallId: "call_1",
      // Keyed: the plain call hash of small values could be brute-forced from the row.
      argsSha256: key.argsMac(hash),
      args: { to: "[email]", text: "Call me on [phone] and charge [card]", card: "[card]", phone: "[phone]" },
    });
    expect(executed).toMatchObject({ resultSummary: "sent to [email] ([phone])", durationMs: 42 });
    expect(failed).toMatchObject({ error: "card [card] declined", durationMs: 3 });
    expect(denied).toMatchObject({ error: "[email] is not in C0OPS" });
    expect(await audit.verify()).toMatchObject({ ok: true, rows: 4 });
  });

  it("caps a long result summary after redacting it, without a cut-off value at the end", async () => {
    const long = `${"ok ".repeat(200)}then mail li.wei@example.com ${"x".repeat(10)}`;
    await sink({
      run,
      callId: "call_2",
      tool: "ticket_report",
      args: {},
      argsSha256: argsSha256("ticket_report", {}),
      action: "tool.executed",
      resultSummary: long,
    });
    const [row] = (await audit.query({ limit: 1 })).rows;
    expect(row?.resultSummary?.length).toBeLessThanOrEqual(MAX_RESULT_SUMMARY + 1);
    expect(row?.resultSummary).toMatch(/^ok ok .*ok…$/);
  });

  it("rejects when the row cannot be written, so the runtime does not run the call", async () => {
    await expect(
      sink({
        run,
        callId: "call_3",
        tool: "x",
        args: {},
        argsSha256: "not-a-hash",
        action: "tool.requested",
      }),
    ).rejects.toThrow(/Invalid audit event/);
  });
});
