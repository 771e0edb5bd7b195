import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { approvalAuditRows } from "../helpers/approvals.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";
import { approvalIdOf, botReplies, cardsIn, replayExactly } from "../helpers/slack-thread.ts";

/**
 * Approval attacks from the attacker's side, over real HTTP (signed clicks to the Bolt receiver),
 * with Postgres and the Slack emulator: replays, outsiders, forged values, arguments changed after
 * the card, late clicks and a storm of clicks. A call runs at most once and only as approved; every
 * refusal is audited and told.
 */

const CHANNEL = "C0OPS";
const REQUESTER = "U0USER1";
const OUTSIDER = "U0WANGLEI"; // a member, not an admin, not the requester

describe("approval attacks over real HTTP (Bolt receiver, Postgres, Slack emulator)", () => {
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
  const actions = async (approvalId: string) =>
    (await approvalAuditRows(db(), approvalId)).map(
      (r) => `${r.action}${r.actor_id ? ` by ${r.actor_id}` : ""}`,
    );
  const executed = async (runId: string) =>
    (
      await execSql<{ n: number }>(
        db(),
        `SELECT count(*)::int AS n FROM audit_log WHERE run_id = '${runId}' AND action = 'tool.executed'`,
      )
    )[0]!.n;
  const statusOf = async (approvalId: string) =>
    (await t.hermes.services.storage.approvals.get(approvalId))?.status;
  const ephemerals = (user?: string) => t.ws.ephemeralMessages(CHANNEL, user);
  const toldWith = async (user: string, start: string, since: number) =>
    waitFor(
      () =>
        ephemerals(user)
          .slice(since)
          .find((m) => m.text.startsWith(start)),
      30_000,
      `"${start}…" told to ${user}`,
    );

  /** A paused `send_message` to Wang Lei asked for by `user`: its thread, card, approval and run. */
  async function pausedSend(user = REQUESTER) {
    const text = `attack test message ${++n}`;
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<@U0WANGLEI>", text } }]));
    const d = await t.sender.appMention({
      user,
      channel: CHANNEL,
      text: `<@U0HERMES> tell Wang Lei: ${text}`,
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => cardsIn(t, CHANNEL, ts)[0], 60_000, "approval card");
    const approvalId = approvalIdOf(card);
    const runId = (await t.hermes.services.storage.approvals.get(approvalId))!.runId!;
    return { ts, card, approvalId, runId, text };
  }
  const click = (card: SandboxMessage, user: string, over: { actionId?: string; value?: string } = {}) =>
    t.sender.blockAction({
      user,
      actionId: over.actionId ?? "hermes.approve",
      value: over.value ?? approvalIdOf(card),
      channel: CHANNEL,
      messageTs: card.ts,
    });
  const answeredWith = (ts: string, text: string) =>
    waitFor(() => botReplies(t, CHANNEL, ts).find((m) => m.text === text), 60_000, `answer "${text}"`);

  it("a replayed click (the same signed request, and a fresh signature of it) runs nothing twice", async () => {
    const { ts, card, approvalId, runId, text } = await pausedSend();
    model.enqueue(answer("Sent once."));
    const first = await click(card, REQUESTER);
    expect(first.status).toBe(200);
    await answeredWith(ts, "Sent once.");
    expect(await replayExactly(t, first)).toBe(200);
    expect((await t.sender.redeliver(first, {})).status).toBe(200);
    // Replays are dropped or told "already approved"; a genuine new click after them is told so.
    const seen = ephemerals(REQUESTER).length;
    await click(card, REQUESTER);
    await toldWith(REQUESTER, `This was already approved by <@${REQUESTER}>`, seen);
    expect(delivered(text)).toHaveLength(1);
    expect(await executed(runId)).toBe(1);
    // Every attempt is in the audit log: the decision, two replays, one late click.
    expect(await actions(approvalId)).toEqual([
      "tool.approval_requested",
      `tool.approved by ${REQUESTER}`,
      `approval.ignored by ${REQUESTER}`,
      `approval.ignored by ${REQUESTER}`,
      `approval.ignored by ${REQUESTER}`,
    ]);
    const errors = (await approvalAuditRows(db(), approvalId)).slice(2).map((r) => r.error);
    expect(errors).toEqual([
      "approve click ignored: replayed request",
      "approve click ignored: replayed request",
      `approve click ignored: already approved by ${REQUESTER}`,
    ]);
    expect(model.requests).toHaveLength(2); // the turn, and one resume
  });

  it("a card whose location was never recorded (its poster died) is the clicked message: updated, and the run resumes", async () => {
    const { ts, card, approvalId, runId } = await pausedSend();
    await execSql(
      db(),
      `UPDATE approvals SET card_channel = NULL, card_ts = NULL WHERE id = '${approvalId}'`,
    );
    model.enqueue(answer("Sent, card found."));
    await click(card, REQUESTER);
    await answeredWith(ts, "Sent, card found.");
    expect(await executed(runId)).toBe(1);
    const blocks = await waitFor(
      () => {
        const b = JSON.stringify(t.ws.getMessage(CHANNEL, card.ts)?.blocks);
        return b.includes(`Approved by <@${REQUESTER}>`) ? b : undefined;
      },
      30_000,
      "the card updated in place",
    );
    expect(blocks).not.toContain("hermes.approve");
  });

  it("an outsider's clicks are refused (ephemeral), audited, and leave the approval pending", async () => {
    const { card, approvalId, text } = await pausedSend();
    const seen = ephemerals(OUTSIDER).length;
    await click(card, OUTSIDER);
    await click(card, OUTSIDER, { actionId: "hermes.reject" });
    await waitFor(() => ephemerals(OUTSIDER).length >= seen + 2, 30_000, "both refusals");
    for (const m of ephemerals(OUTSIDER).slice(seen)) {
      expect(m.text).toBe("You can't decide this: only the requester or an admin may decide this.");
    }
    // Each refusal is told and audited; the two clicks race, so the second row may land just after
    // the second sentence.
    await expect
      .poll(() => actions(approvalId), { timeout: 30_000 })
      .toEqual(["tool.approval_requested", `tool.denied by ${OUTSIDER}`, `tool.denied by ${OUTSIDER}`]);
    const rows = await approvalAuditRows(db(), approvalId);
    expect(rows.slice(1).map((r) => r.error)).toEqual([
      "refused to approve: only the requester or an admin may decide this",
      "refused to reject: only the requester or an admin may decide this",
    ]);
    expect(await statusOf(approvalId)).toBe("pending");
    expect(delivered(text)).toEqual([]);
  });

  it("a forged value: another thread's approval, someone else's pending approval, made-up ids", async () => {
    const mine = await pausedSend(REQUESTER);
    const theirs = await pausedSend(OUTSIDER); // Wang Lei's own request, in another thread
    const seen = ephemerals(REQUESTER).length;
    // The requester clicks his own card, but the value names Wang Lei's approval: a card decides
    // only its own approval.
    await click(mine.card, REQUESTER, { value: theirs.approvalId });
    await toldWith(REQUESTER, "You can't decide this: that button belongs to another message", seen);
    expect(await actions(theirs.approvalId)).toEqual([
      "tool.approval_requested",
      `approval.ignored by ${REQUESTER}`,
    ]);
    // So does an admin, who could otherwise decide any approval.
    const adminSeen = ephemerals("U0ADMIN").length;
    await click(mine.card, "U0ADMIN", { value: theirs.approvalId });
    await toldWith("U0ADMIN", "You can't decide this: that button belongs to another message", adminSeen);
    expect(await statusOf(theirs.approvalId)).toBe("pending");
    expect(await statusOf(mine.approvalId)).toBe("pending");
    // Ids that do not exist (random, empty, oversized, SQL-looking): told, nothing decided, no 500.
    for (const value of ["apr_AAAAAAAAAAAAAAAAAAAAAA", "", "x".repeat(2000), "' OR '1'='1"]) {
      const before = ephemerals(REQUESTER).length;
      const r = await click(mine.card, REQUESTER, { value });
      expect(r.status).toBe(200);
      await waitFor(() => ephemerals(REQUESTER).length > before, 30_000, "an answer to the forged click");
    }
    expect(await statusOf(mine.approvalId)).toBe("pending");
    expect(delivered(mine.text)).toEqual([]);
    expect(delivered(theirs.text)).toEqual([]);
    // Each made-up id is audited as an ignored click naming the id it carried (capped).
    const forged = await execSql<{ approval_id: string; actor_id: string; error: string }>(
      db(),
      `SELECT approval_id, actor_id, error FROM audit_log WHERE action = 'approval.ignored' AND tool = '(unknown)' AND actor_id = '${REQUESTER}' ORDER BY id`,
    );
    expect(forged.map((r) => r.approval_id)).toEqual([
      "apr_AAAAAAAAAAAAAAAAAAAAAA",
      "",
      "x".repeat(100),
      "' OR '1'='1",
    ]);
    expect(forged.every((r) => r.error === "approve click ignored: no such approval")).toBe(true);
  });

  it("arguments changed in the approvals table after the card: refused at the click, audited", async () => {
    const { card, approvalId, text } = await pausedSend();
    await execSql(
      db(),
      `UPDATE approvals SET args = jsonb_set(args, '{to}', '"<#C0GENERAL>"') WHERE id = '${approvalId}'`,
    );
    const seen = ephemerals(REQUESTER).length;
    await click(card, REQUESTER);
    await toldWith(REQUESTER, "Not run: the stored arguments no longer match", seen);
    expect(await actions(approvalId)).toEqual(["tool.approval_requested", `tool.denied by ${REQUESTER}`]);
    expect(await statusOf(approvalId)).toBe("pending");
    expect(delivered(text)).toEqual([]);
    expect(t.ws.history("C0GENERAL").filter((m) => m.text.includes(text))).toEqual([]);
  });

  it("arguments changed in the paused run's snapshot: approved, then not executed, audited tool.denied", async () => {
    const { ts, card, approvalId, runId, text } = await pausedSend();
    await execSql(
      db(),
      `UPDATE runs SET snapshot = jsonb_set(snapshot, '{pending,0,args,to}', '"<#C0GENERAL>"') WHERE id = '${runId}'`,
    );
    model.enqueue(answer("It was not sent."));
    await click(card, REQUESTER);
    await answeredWith(ts, "It was not sent.");
    const rows = await execSql<{ action: string; error: string | null }>(
      db(),
      `SELECT action, error FROM audit_log WHERE run_id = '${runId}' AND tool = 'send_message' ORDER BY id`,
    );
    expect(rows.map((r) => r.action)).toEqual([
      "tool.requested",
      "tool.approval_requested",
      "tool.approved",
      "tool.denied",
    ]);
    expect(rows.at(-1)!.error).toBe("arguments changed since approval");
    expect(await executed(runId)).toBe(0);
    expect(delivered(text)).toEqual([]);
    expect(t.ws.history("C0GENERAL").filter((m) => m.text.includes(text))).toEqual([]);
    expect(approvalId).toBeTruthy();
  });

  it("a click after expiry runs nothing: the first one expires it (audited), later ones are told", async () => {
    const { ts, card, approvalId, runId, text } = await pausedSend();
    await execSql(
      db(),
      `UPDATE approvals SET expires_at = now() - interval '1 second' WHERE id = '${approvalId}'`,
    );
    model.enqueue(answer("The approval expired; nothing was sent."));
    const seen = ephemerals(REQUESTER).length;
    await click(card, REQUESTER);
    await toldWith(REQUESTER, "This approval had expired, so nothing was run.", seen);
    await answeredWith(ts, "The approval expired; nothing was sent.");
    await click(card, "U0ADMIN");
    await toldWith("U0ADMIN", "This was already expired", 0);
    expect(await actions(approvalId)).toEqual([
      "tool.approval_requested",
      "tool.expired",
      "approval.ignored by U0ADMIN",
    ]);
    expect(await executed(runId)).toBe(0);
    expect(delivered(text)).toEqual([]);
  });

  it("50 simultaneous clicks on one card (requester, admin, outsider): one execution, one tool.approved", async () => {
    const { ts, card, approvalId, runId, text } = await pausedSend();
    model.enqueue(answer("Sent after the storm."));
    const seen = { all: ephemerals().length, outsider: ephemerals(OUTSIDER).length };
    const clickers = Array.from({ length: 50 }, (_, i) =>
      i % 5 === 4 ? OUTSIDER : i % 2 === 0 ? REQUESTER : "U0ADMIN",
    );
    const answers = await Promise.all(clickers.map((user) => click(card, user)));
    expect(answers.map((a) => a.status)).toEqual(clickers.map(() => 200));
    await answeredWith(ts, "Sent after the storm.");
    // Every losing click is told why (49: all but the winner's).
    await waitFor(() => ephemerals().length >= seen.all + 49, 60_000, "49 losers told");
    expect(ephemerals().length).toBe(seen.all + 49);
    expect(delivered(text)).toHaveLength(1);
    expect(await executed(runId)).toBe(1);
    const rows = await actions(approvalId);
    expect(rows.filter((r) => r.startsWith("tool.approved"))).toHaveLength(1);
    // Each outsider refused before the decision is audited, and each audited one was told.
    const refusedTold = ephemerals(OUTSIDER)
      .slice(seen.outsider)
      .filter((m) => m.text.startsWith("You can't decide this")).length;
    expect(rows.filter((r) => r === `tool.denied by ${OUTSIDER}`)).toHaveLength(refusedTold);
    // Every click is one row: the winner's approval, a refusal, or an ignored late click.
    expect(rows).toHaveLength(1 + 50);
    expect(
      rows.filter((r) => !r.startsWith("tool.denied") && !r.startsWith("approval.ignored")),
    ).toHaveLength(2);
    expect(model.requests).toHaveLength(2); // the run resumed once
  });
});
