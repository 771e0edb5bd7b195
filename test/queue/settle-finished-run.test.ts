import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TurnJob } from "../../src/queue/jobs.ts";
import type { Delivery } from "../../src/sandbox/events-sender.ts";
import type { SandboxMessage } from "../../src/sandbox/workspace-types.ts";
import { feedbackBlock } from "../../src/slack/feedback-block.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { execSql } from "../helpers/pg.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";
import { botReplies } from "../helpers/slack-thread.ts";

type Block = { type?: string; block_id?: string };

/**
 * A turn whose run finished but whose worker died before the event was marked done: the job is
 * handed out again and the stored answer is shown again, not re-run. Shown again, a completed run's
 * answer keeps its 👍/👎 buttons (rating that run); a failed run's sentence gets none.
 */
describe("a finished run's answer shown again after a crash", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model });
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await model.stop();
  });
  beforeEach(() => model.reset());

  const eventStatus = async (eventId: string) =>
    (
      await execSql<{ status: string }>(
        t.hermes.services.storage.db.db,
        `select status from slack_events where event_id = '${eventId}'`,
      )
    )[0]?.status;

  /** The worker "died" after the run finished: the event is unfinished again and its job comes back. */
  async function handOutAgain(d: Delivery, text: string) {
    const ts = d.message!.ts;
    // The first worker marks the event done after it has posted: wait for that mark, or it would
    // land after the reset below and undo it.
    await waitFor(
      async () => (await eventStatus(d.eventId!)) === "done",
      30_000,
      "the first worker's done mark",
    );
    await execSql(
      t.hermes.services.storage.db.db,
      `update slack_events set status = 'received', finished_at = null where event_id = '${d.eventId}'`,
    );
    const job: TurnJob = {
      type: "turn",
      sessionKey: `T0001:C0OPS:${ts}`,
      teamId: "T0001",
      channelId: "C0OPS",
      threadTs: ts,
      userId: "U0USER1",
      text,
      eventId: d.eventId!,
      messageTs: ts,
      isDm: false,
    };
    await t.hermes.services.queue.enqueue(job, { jobId: `again:${d.eventId}` });
  }

  const runOf = async (eventId: string) =>
    (
      await execSql<{ id: string; status: string }>(
        t.hermes.services.storage.db.db,
        `select id, status from runs where event_id = '${eventId}'`,
      )
    )[0]!;

  it("a completed run: the answer again, with the feedback buttons of the same run; the model is not asked again", async () => {
    model.enqueue(answer("The VPN is back up."));
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> vpn?" });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(t, "C0OPS", ts).find((m) => m.text.includes("VPN is back")), 30_000);
    const run = await runOf(d.eventId!);
    expect(run.status).toBe("completed");

    await handOutAgain(d, "vpn?");
    const shown = await waitFor(
      () => {
        const answers = botReplies(t, "C0OPS", ts).filter((m) => m.text.includes("VPN is back"));
        return answers.length === 2 ? answers : undefined;
      },
      30_000,
      "the stored answer shown again",
    );
    for (const m of shown as SandboxMessage[])
      expect(m.blocks as Block[]).toContainEqual(feedbackBlock(run.id));
    expect(model.requests).toHaveLength(1);
    await waitFor(async () => (await eventStatus(d.eventId!)) === "done", 30_000, "the event marked done");
  });

  it("a failed run: its sentence again, without feedback buttons", async () => {
    model.enqueue({ status: 500, body: { error: { message: "model exploded" } } });
    const d = await t.sender.appMention({ user: "U0USER1", channel: "C0OPS", text: "<@U0HERMES> status?" });
    const ts = d.message!.ts;
    await waitFor(
      () => botReplies(t, "C0OPS", ts).find((m) => m.text.includes(":warning:")),
      30_000,
      "failure shown",
    );
    const run = await runOf(d.eventId!);
    expect(run.status).toBe("failed");

    const before = botReplies(t, "C0OPS", ts).length;

    await handOutAgain(d, "status?");
    const again = await waitFor(
      () => botReplies(t, "C0OPS", ts).slice(before).at(0),
      30_000,
      "the stored sentence shown again",
    );
    expect(again.text).toContain("could not get an answer from the model");
    expect(((again.blocks ?? []) as Block[]).some((b) => b.block_id?.startsWith("hermes.feedback"))).toBe(
      false,
    );
  });
});
