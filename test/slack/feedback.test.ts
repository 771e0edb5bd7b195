import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { FEEDBACK_ACTION_ID } from "../../src/slack/feedback-block.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { botReplies, commandReply, settledReplies } from "../helpers/slack-thread.ts";

type Block = { type: string; elements?: Array<Record<string, unknown>> };

const feedbackOf = (m: SandboxMessage) =>
  ((m.blocks ?? []) as Block[]).find((b) => b.type === "context_actions")?.elements?.[0] as
    | { action_id: string; positive_button: { value: string }; negative_button: { value: string } }
    | undefined;

describe("👍/👎 under answers, through the real Bolt app", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  const sql = <T extends Record<string, unknown>>(text: string) =>
    execSql<T>(t.hermes.services.storage.db.db, text);

  /** Asks in #ops and waits for the thread's last bot message to contain `until`. */
  async function ask(text: string, until: string) {
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: `<@U0HERMES> ${text}` });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, "C0OPS", ts).some((m) => m.text.includes(until)), 30_000, "the answer");
    // The answer is posted before the working message is removed: the thread as it settles.
    return settledReplies(t, "C0OPS", ts);
  }

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({
      model,
      logger: (await import("../../src/core/logger.ts")).createLogger({ level: "info" }),
    });
  }, 180_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  /** `/hermes <text>` as `user` in #ops: the text of the ephemeral answer. */
  const slash = (user: string, text: string) => commandReply(t, user, text, "C0OPS");
  /** The feedback counts `/hermes runs` shows an admin on the run's line. */
  async function listedCounts(runId: string): Promise<string | undefined> {
    const line = (await slash("U0ADMIN", "runs")).split("\n").find((l) => l.includes(runId));
    return /👍 \d+ 👎 \d+/.exec(line ?? "")?.[0];
  }

  it("an answer ends with the feedback buttons; clicks toggle, are stored and audited", async () => {
    model.enqueue(answer("The VPN restarts at 02:00."));
    const [reply] = await ask("when does the VPN restart?", "02:00");
    const buttons = feedbackOf(reply!);
    expect(buttons?.action_id).toBe(FEEDBACK_ACTION_ID);
    const runId = buttons!.positive_button.value.slice("up:".length);
    expect(buttons!.negative_button.value).toBe(`down:${runId}`);
    const [run] = await sql<{ status: string }>(`select status from runs where id = '${runId}'`);
    expect(run?.status).toBe("completed");

    const click = (value: string) =>
      t.sender.blockAction({
        user: "U0ADMIN",
        channel: "C0OPS",
        messageTs: reply!.ts,
        actionId: FEEDBACK_ACTION_ID,
        value,
      });
    expect((await click(`up:${runId}`)).status).toBe(200);
    const audited = () =>
      sql<{ args: { value: string }; actor_id: string; channel_id: string }>(
        `select args, actor_id, channel_id from audit_log where action = 'run.feedback' and run_id = '${runId}' order by id`,
      );
    await waitFor(async () => (await audited()).length === 1, 10_000, "the first audit row");
    expect(
      await sql(`select user_id, value, channel_id, message_ts from run_feedback where run_id = '${runId}'`),
    ).toEqual([{ user_id: "U0ADMIN", value: "up", channel_id: "C0OPS", message_ts: reply!.ts }]);

    await click(`down:${runId}`);
    await waitFor(async () => (await audited()).length === 2, 10_000, "the second audit row");
    expect(await sql(`select user_id, value from run_feedback where run_id = '${runId}'`)).toEqual([
      { user_id: "U0ADMIN", value: "down" },
    ]);
    expect((await audited()).map((r) => [r.args, r.actor_id, r.channel_id])).toEqual([
      [{ value: "up" }, "U0ADMIN", "C0OPS"],
      [{ value: "down", previous: "up" }, "U0ADMIN", "C0OPS"],
    ]);
    expect(await listedCounts(runId)).toBe("👍 0 👎 1");

    // 👎 again (sent when it is selected anew after an unselect, which Slack does not send) keeps it.
    await click(`down:${runId}`);
    await waitFor(async () => (await audited()).length === 3, 10_000, "the third audit row");
    expect(await sql(`select user_id, value from run_feedback where run_id = '${runId}'`)).toEqual([
      { user_id: "U0ADMIN", value: "down" },
    ]);
    expect((await audited())[2]!.args).toEqual({ value: "down" });
    expect(await listedCounts(runId)).toBe("👍 0 👎 1");

    // Another person's rating is theirs alone: Wang Lei's 👍 then U0ADMIN's 👍 are two ratings.
    await t.sender.blockAction({
      user: "U0WANGLEI",
      channel: "C0OPS",
      messageTs: reply!.ts,
      actionId: FEEDBACK_ACTION_ID,
      value: `up:${runId}`,
    });
    await click(`up:${runId}`);
    await waitFor(async () => (await audited()).length === 5, 10_000, "the fifth audit row");
    expect(
      await sql(`select user_id, value from run_feedback where run_id = '${runId}' order by user_id`),
    ).toEqual([
      { user_id: "U0ADMIN", value: "up" },
      { user_id: "U0WANGLEI", value: "up" },
    ]);
    expect(await listedCounts(runId)).toBe("👍 2 👎 0");
  });

  it("a value that does not parse or names an unknown run stores nothing", async () => {
    model.enqueue(answer("Ticket 7 is open."));
    const [reply] = await ask("status of ticket 7?", "Ticket 7");
    const before = await sql<{ n: number }>(`select count(*)::int as n from audit_log`);
    for (const value of ["sideways:run_x", "up:run_doesnotexist", "up:not a run"]) {
      const d = await t.sender.blockAction({
        user: "U0USER1",
        channel: "C0OPS",
        messageTs: reply!.ts,
        actionId: FEEDBACK_ACTION_ID,
        value,
      });
      expect(d.status).toBe(200);
    }
    // A valid click after them is processed, so the bad ones (sent first) have been handled by then.
    const runId = feedbackOf(reply!)!.positive_button.value.slice(3);
    await t.sender.blockAction({
      user: "U0USER1",
      channel: "C0OPS",
      messageTs: reply!.ts,
      actionId: FEEDBACK_ACTION_ID,
      value: `up:${runId}`,
    });
    await waitFor(
      async () => (await sql(`select 1 from run_feedback where run_id = '${runId}'`)).length === 1,
    );
    expect(
      await sql(`select run_id from run_feedback where run_id <> '${runId}' and user_id = 'U0USER1'`),
    ).toEqual([]);
    const count = async () => (await sql<{ n: number }>(`select count(*)::int as n from audit_log`))[0]!.n;
    await waitFor(async () => (await count()) - before[0]!.n >= 4, 10_000, "the four audit rows");
    expect((await count()) - before[0]!.n).toBe(4);
    // Each refused click is audited with its reason; only the valid one is a rating.
    const rows = await sql<{ action: string; reason: string | null }>(
      `select action, args->>'reason' as reason from audit_log order by id desc limit 4`,
    );
    expect(rows.map((r) => `${r.action} ${r.reason}`).sort()).toEqual([
      "feedback.ignored bad_value",
      "feedback.ignored bad_value",
      "feedback.ignored unknown_run",
      "run.feedback null",
    ]);
  });

  it("only the last message of a long answer carries the buttons; a failure sentence none", async () => {
    const para = `${"word ".repeat(500)}\n\n`;
    model.enqueue(answer(`${para.repeat(5)}THE END`));
    const replies = await ask("write a lot", "THE END");
    expect(replies.length).toBeGreaterThan(1);
    expect(replies.map((m) => feedbackOf(m) !== undefined)).toEqual(
      replies.map((_, i) => i === replies.length - 1),
    );
    // The last message also names its run in Slack message metadata (what "View run" links by).
    const runId = feedbackOf(replies.at(-1)!)!.positive_button.value.slice(3);
    expect(replies.map((m) => m.metadata)).toEqual(
      replies.map((_, i) =>
        i === replies.length - 1 ? { event_type: "hermes_run", event_payload: { run_id: runId } } : undefined,
      ),
    );

    model.enqueue({ status: 500, body: { error: { message: "boom" } } });
    const failed = await ask("break please", "Reference: run");
    expect(failed.every((m) => feedbackOf(m) === undefined)).toBe(true);
    // The failure sentence names its run too: the reference id in its text is that run.
    const sentence = failed.find((m) => m.text.includes("Reference: run"))!;
    const failedId = (sentence.metadata as { event_payload: { run_id: string } }).event_payload.run_id;
    expect(sentence.metadata).toEqual({ event_type: "hermes_run", event_payload: { run_id: failedId } });
    expect(sentence.text).toContain(failedId);
    expect(failedId).not.toBe(runId);
  });
});
