import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer, toolCalls } from "../helpers/scripted-model.ts";

type Block = { type: string; elements?: Array<{ value?: string }> };

const isCard = (m: SandboxMessage) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions");
const approvalIdOf = (card: SandboxMessage) =>
  ((card.blocks as Block[]).find((b) => b.type === "actions")?.elements?.[0]?.value ?? "") as string;

/**
 * `send_message` destinations are policy-checked when the call is requested and again when the
 * approved call runs. Between the two a person can leave the channel (or be removed): the second
 * check asks Slack afresh, so the approval of a requester who is no longer a member posts nothing.
 */
describe("send_message: membership is checked again, uncached, when the approved call runs", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => {
    model.reset();
    t.emulator.clearCalls();
  });

  /** Li Ming asks Hermes to post to #general; resolves with the approval card in the thread. */
  async function requestPost(text: string) {
    model.enqueue(toolCalls([{ name: "send_message", args: { to: "<#C0GENERAL>", text } }]), answer("Done."));
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> tell general",
    });
    const threadTs = d.message!.ts;
    const card = await waitFor(
      () => (t.thread("C0OPS", threadTs) ?? []).find(isCard),
      15_000,
      "approval card",
    );
    return { threadTs, card, approvalId: approvalIdOf(card) };
  }
  const runAudit = (approvalId: string) =>
    execSql<{ action: string; error: string | null }>(
      t.hermes.services.storage.db.db,
      `SELECT action, error FROM audit_log
        WHERE tool = 'send_message' AND run_id = (SELECT run_id FROM approvals WHERE id = '${approvalId}')
        ORDER BY id`,
    );
  const postsTo = (channel: string) =>
    t.emulator.callsTo("chat.postMessage").filter((c) => c.args.channel === channel);

  it("a requester removed from the channel after the card was posted: the approval is denied, nothing is posted", async () => {
    const { threadTs, card, approvalId } = await requestPost("Release moved to Friday");
    // The request-time check saw a member (that answer is what a cache would have kept).
    expect((await runAudit(approvalId)).map((r) => r.action)).toEqual([
      "tool.requested",
      "tool.approval_requested",
    ]);
    t.ws.leaveChannel("C0GENERAL", "U0USER1");
    try {
      const click = await t.sender.blockAction({
        user: "U0USER1",
        channel: "C0OPS",
        messageTs: card.ts,
        actionId: "hermes.approve",
        value: approvalId,
      });
      expect(click.status).toBe(200);
      const denied = await waitFor(
        async () => (await runAudit(approvalId)).find((r) => r.action === "tool.denied"),
        15_000,
        "tool.denied",
      );
      expect(denied.error).toContain("not a member of <#C0GENERAL>");
      const actions = (await runAudit(approvalId)).map((r) => r.action);
      expect(actions).not.toContain("tool.executed");
      expect(postsTo("C0GENERAL")).toEqual([]);
      expect(t.ws.history("C0GENERAL").some((m) => m.text.includes("Release moved to Friday"))).toBe(false);
      // The run goes on to its answer: wait for it, so its last model call cannot take the next test's
      // scripted step (the script is reset between tests).
      await waitFor(
        () => (t.thread("C0OPS", threadTs) ?? []).some((m) => m.text.includes("Done.")),
        30_000,
        "the run's answer after the denial",
      );
    } finally {
      t.ws.joinChannel("C0GENERAL", "U0USER1");
    }
  });

  it("a member who stays: the same flow posts once (the check is not simply failing closed)", async () => {
    const { card, approvalId } = await requestPost("Standup at ten");
    await t.sender.blockAction({
      user: "U0USER1",
      channel: "C0OPS",
      messageTs: card.ts,
      actionId: "hermes.approve",
      value: approvalId,
    });
    await waitFor(
      async () => (await runAudit(approvalId)).some((r) => r.action === "tool.executed"),
      15_000,
      "tool.executed",
    );
    expect(postsTo("C0GENERAL")).toHaveLength(1);
    expect((await runAudit(approvalId)).map((r) => r.action)).not.toContain("tool.denied");
  });
});
