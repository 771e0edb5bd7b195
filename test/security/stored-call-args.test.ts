import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { argsSha256 } from "../../src/core/args-hash.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { SIGNING_SECRET, startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { approvalIdOf, botReplies, cardsIn, messageText } from "../helpers/slack-thread.ts";

/**
 * Raw call arguments outlive neither the approval nor the run that needs them, over real HTTP with
 * Postgres and the Slack emulator: a pending approval and a paused run hold the exact call (bound by
 * the audit key's HMAC, never the plain hash); once the approval is decided and the run finished, no
 * table holds the raw values or the plain hash. A restart does not change what runs, and a stored
 * argument edited behind Hermes' back never runs.
 */

const CHANNEL = "C0OPS";
const REQUESTER = "U0USER1";
const PHONE = "+1 415-555-0134";
const EMAIL = "li.ming@example.com";
/** A configured secret value of the process (the Slack signing secret): only the process redactor knows it. */
const SECRET = SIGNING_SECRET;
const TABLES = ["approvals", "runs", "run_steps", "results", "audit_log"] as const;

describe("stored call arguments: raw only while needed, keyed binding only (Postgres)", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let n = 0;

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  const db = () => t.hermes.services.storage.db.db;
  const delivered = (text: string) => t.ws.history("D0WANGLEI").filter((m) => m.text.includes(text));
  const auditActions = async (runId: string) =>
    (
      await execSql<{ action: string; error: string | null }>(
        db(),
        `SELECT action, error FROM audit_log WHERE run_id = '${runId}' ORDER BY id`,
      )
    ).map((r) => (r.error ? `${r.action}: ${r.error}` : r.action));
  const runStatus = async (runId: string) =>
    (await execSql<{ status: string }>(db(), `SELECT status FROM runs WHERE id = '${runId}'`))[0]?.status;
  /** Every row of `table` as JSON text: each text and json column of it. */
  const rowsAsText = async (table: string) =>
    (await execSql<{ j: string }>(db(), `SELECT row_to_json(x)::text AS j FROM ${table} x`)).map((r) => r.j);
  /** The rows of the run's call (its run, steps, results, approvals, audit rows) that contain `needle`. */
  const storedAnywhere = async (runId: string, needle: string) => {
    const found: string[] = [];
    for (const table of TABLES)
      for (const row of await rowsAsText(table))
        if (row.includes(runId) && row.includes(needle)) found.push(`${table}: ${row}`);
    return found;
  };

  /** A paused `send_message` carrying a phone number, an email and a configured secret. */
  async function pausedSend() {
    const text = `stored-args test ${++n}: call ${PHONE}, mail ${EMAIL}, key ${SECRET}`;
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text } }]));
    const d = await t.sender.appMention({
      user: REQUESTER,
      channel: CHANNEL,
      text: `<@U0HERMES> tell Wang Lei the number and address (test ${n})`,
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardsIn(t, CHANNEL, ts)[0], 60_000, "approval card");
    const approvalId = approvalIdOf(card);
    const approval = (await t.hermes.services.storage.approvals.get(approvalId))!;
    return { ts, card, approvalId, approval, runId: approval.runId!, text };
  }
  const approve = (card: SandboxMessage, approvalId: string) =>
    t.sender.blockAction({
      user: REQUESTER,
      actionId: "hermes.approve",
      value: approvalId,
      channel: CHANNEL,
      messageTs: card.ts,
    });
  const answeredWith = (ts: string, text: string) =>
    waitFor(() => botReplies(t, CHANNEL, ts).find((m) => m.text === text), 60_000, `answer "${text}"`);

  it("after the call is approved and run, no table holds its raw values or its plain hash", async () => {
    const { ts, card, approvalId, approval, runId, text } = await pausedSend();
    // While pending: the approval and the paused run hold the exact call, bound by the keyed hash only.
    expect(approval.args).toMatchObject({ text });
    const plain = argsSha256(approval.tool, approval.args);
    expect(approval.argsSha256).toBe(t.hermes.services.storage.audit.argsMac(plain));
    expect(messageText(card)).toContain(PHONE);
    expect(await storedAnywhere(runId, plain)).toEqual([]);

    model.enqueue(answer("Sent."));
    expect((await approve(card, approvalId)).status).toBe(200);
    await answeredWith(ts, "Sent.");
    await waitFor(async () => (await runStatus(runId)) === "completed", 30_000, "run completed");
    // Exactly the approved call ran.
    expect(delivered(`stored-args test ${n}: call ${PHONE}, mail ${EMAIL}`)).toHaveLength(1);
    expect(await auditActions(runId)).toContain("tool.executed");

    for (const needle of [PHONE, EMAIL, SECRET, plain])
      expect(await storedAnywhere(runId, needle)).toEqual([]);
    // What is kept instead: the redacted call and its keyed binding.
    const kept = (await t.hermes.services.storage.approvals.get(approvalId))!;
    expect(kept.status).toBe("approved");
    expect(JSON.stringify(kept.args)).toContain("[phone]");
    expect(JSON.stringify(kept.args)).toContain("[email]");
    expect(kept.argsSha256).toBe(approval.argsSha256);
    const [run] = await execSql<{ snapshot: { messages: unknown[]; pending: unknown[] } }>(
      db(),
      `SELECT snapshot FROM runs WHERE id = '${runId}'`,
    );
    expect(run!.snapshot.pending).toEqual([]);
    // A finished run keeps at most its final answer: no calls, no results, no request.
    for (const m of run!.snapshot.messages)
      expect(Object.keys(m as object).sort()).toEqual(["content", "role"]);
    expect(JSON.stringify(run!.snapshot.messages)).not.toContain('"role":"tool"');
  });

  it("a stored argument edited behind Hermes' back, even with a recomputed plain hash, never runs", async () => {
    // The approval and the run both edited, each with the plain hash of the new call.
    const one = await pausedSend();
    const forged = { ...(one.approval.args as Record<string, unknown>), text: "wire the money" };
    const forgedHash = argsSha256(one.approval.tool, forged);
    await execSql(
      db(),
      `UPDATE approvals SET args = '${JSON.stringify(forged)}'::jsonb, args_sha256 = '${forgedHash}'
        WHERE id = '${one.approvalId}'`,
    );
    await execSql(
      db(),
      `UPDATE runs SET snapshot = jsonb_set(jsonb_set(snapshot, '{pending,0,args}', '${JSON.stringify(forged)}'::jsonb),
        '{pending,0,argsSha256}', '"${forgedHash}"') WHERE id = '${one.runId}'`,
    );
    expect((await approve(one.card, one.approvalId)).status).toBe(200);
    await waitFor(
      async () => (await auditActions(one.runId)).some((a) => a.startsWith("tool.denied")),
      30_000,
      "refusal audited",
    );
    expect((await t.hermes.services.storage.approvals.get(one.approvalId))?.status).toBe("pending");

    // Only the run's stored call edited (its approval intact): approved, then refused at resume.
    const two = await pausedSend();
    const edited = { ...(two.approval.args as Record<string, unknown>), text: "wire the money" };
    await execSql(
      db(),
      `UPDATE runs SET snapshot = jsonb_set(jsonb_set(snapshot, '{pending,0,args}', '${JSON.stringify(edited)}'::jsonb),
        '{pending,0,argsSha256}', '"${argsSha256(two.approval.tool, edited)}"') WHERE id = '${two.runId}'`,
    );
    model.enqueue(answer("Could not send."));
    expect((await approve(two.card, two.approvalId)).status).toBe(200);
    await answeredWith(two.ts, "Could not send.");
    expect(await auditActions(two.runId)).toContain("tool.denied: arguments changed since approval");
    expect(await auditActions(two.runId)).not.toContain("tool.executed");
    expect(delivered("wire the money")).toEqual([]);
  });

  it("a pending approval shows and runs exactly the stored call after a restart", async () => {
    const { ts, card, approvalId, approval, runId } = await pausedSend();
    await t.stopHermes();
    t = await startTestHermes({ model, reuse: t });
    const stored = (await t.hermes.services.storage.approvals.get(approvalId))!;
    expect(stored).toMatchObject({ status: "pending", args: approval.args, argsSha256: approval.argsSha256 });
    const pending = await t.hermes.services.storage.approvals.listPending({ runId });
    expect(pending.map((a) => [a.id, a.args])).toEqual([[approvalId, approval.args]]);

    model.enqueue(answer("Sent after the restart."));
    expect((await approve(card, approvalId)).status).toBe(200);
    await answeredWith(ts, "Sent after the restart.");
    expect(delivered(`stored-args test ${n}: call ${PHONE}, mail ${EMAIL}`)).toHaveLength(1);
    await waitFor(async () => (await runStatus(runId)) === "completed", 30_000, "run completed");
    const plain = argsSha256(approval.tool, approval.args);
    for (const needle of [PHONE, EMAIL, SECRET, plain])
      expect(await storedAnywhere(runId, needle)).toEqual([]);
  });
});
