import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../../src/sandbox/workspace-types.ts";
import { sql } from "../../../src/store/drizzle.ts";
import { startTestHermes, type TestHermes, waitFor } from "../../helpers/hermes-harness.ts";

type Block = {
  type: string;
  text?: { text: string };
  elements?: Array<{ action_id?: string; value?: string; text?: unknown }>;
};

const botReplies = (t: TestHermes, channel: string, ts: string) =>
  (t.thread(channel, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);
const hasButtons = (m: SandboxMessage) => ((m.blocks ?? []) as Block[]).some((b) => b.type === "actions");
const textOf = (m: SandboxMessage) =>
  [
    m.text,
    ...((m.blocks ?? []) as Block[]).flatMap((b) => [
      b.text?.text ?? "",
      ...(b.type === "context" ? (b.elements ?? []).map((e) => String(e.text ?? "")) : []),
    ]),
  ].join("\n");

/**
 * Every way an approval ends updates its card in place (buttons gone, the outcome shown), and nothing
 * in the thread is left saying it waits: approved, rejected, expired and cancelled, in command mode
 * (no model) over real HTTP.
 */
describe("a card that waited for approval is updated when decided", () => {
  let t: TestHermes;
  beforeAll(async () => {
    t = await startTestHermes();
  }, 180_000);
  afterAll(() => t?.stop());

  /** `run send_message …` in a new thread; its card and the approval's id once it is posted. */
  async function paused(text: string) {
    const d = await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: `<@U0HERMES> run send_message to=U0WANGLEI text="${text}"`,
    });
    const ts = d.message!.ts;
    const card = await waitFor(() => botReplies(t, "C0OPS", ts).find(hasButtons), 30_000, "approval card");
    const value = (card.blocks as Block[]).find((b) => b.type === "actions")!.elements![0]!.value!;
    // The card names the person by reference; the pause's line says what was asked, not a state.
    expect(textOf(card)).toContain("`to` <@U0WANGLEI>");
    return { ts, card, approvalId: value };
  }

  /** Once the run has answered: the card is decided, and no message of the thread says it waits. */
  async function settled(ts: string, cardTs: string, answered: (text: string) => boolean, shown: string) {
    await waitFor(() => botReplies(t, "C0OPS", ts).find((m) => answered(m.text)), 30_000, "the answer");
    await waitFor(
      () => botReplies(t, "C0OPS", ts).every((m) => !m.text.includes("Working on it")),
      30_000,
      "working messages removed",
    );
    const card = t.ws.getMessage("C0OPS", cardTs)!;
    expect(hasButtons(card)).toBe(false);
    expect(textOf(card)).toContain(shown);
    const replies = botReplies(t, "C0OPS", ts);
    for (const m of replies) expect(textOf(m)).not.toMatch(/waiting for approval|approval needed/i);
    expect(
      replies.filter((m) => m.text.startsWith(":raised_hand: I asked for approval to run `send_message`")),
    ).toHaveLength(1);
  }

  it("approved: the card shows who approved, the answer follows", async () => {
    const { ts, card, approvalId } = await paused("approved");
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.approve",
      value: approvalId,
      channel: "C0OPS",
      messageTs: card.ts,
    });
    await settled(ts, card.ts, (x) => x.startsWith("`send_message` returned:"), "Approved by <@U0USER1>");
  });

  it("rejected: the card shows who rejected", async () => {
    const { ts, card, approvalId } = await paused("rejected");
    await t.sender.blockAction({
      user: "U0USER1",
      actionId: "hermes.reject",
      value: approvalId,
      channel: "C0OPS",
      messageTs: card.ts,
    });
    await settled(ts, card.ts, (x) => x.includes("rejected it"), "Rejected by <@U0USER1>");
  });

  it("expired: the card says so", async () => {
    const { ts, card, approvalId } = await paused("expired");
    await t.hermes.services.storage.db.db.execute(
      sql`update approvals set expires_at = now() - interval '1 second' where id = ${approvalId}`,
    );
    const { expireApprovals } = await import("../../../src/boot/background-work.ts");
    // Hermes' own expiry sweep may take it first; either way it is expired once.
    const byThisCall = await expireApprovals(t.hermes.services);
    expect(byThisCall).toBeLessThanOrEqual(1);
    await waitFor(
      async () =>
        (
          await t.hermes.services.storage.db.db.execute(
            sql`select status from approvals where id = ${approvalId}`,
          )
        ).rows[0]?.status === "expired",
      30_000,
      "the approval expired",
    );
    await settled(ts, card.ts, (x) => x.includes("before the approval expired"), "Expired");
  });

  it("cancelled by the requester: the card shows the rejection", async () => {
    const { ts, card } = await paused("cancelled");
    await t.sender.appMention({
      user: "U0USER1",
      channel: "C0OPS",
      text: "<@U0HERMES> cancel",
      threadTs: ts,
    });
    await settled(ts, card.ts, (x) => /rejected it|cancel/i.test(x), "Rejected by <@U0USER1>");
  });
});
