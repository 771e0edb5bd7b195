import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ABANDONED_REASON, abandonStaleRuns } from "../../src/boot/background-work.ts";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";
import { turnJob } from "../helpers/redis-queue.ts";
import { answer, ScriptedModelServer } from "../helpers/scripted-model.ts";

const CHANNEL = "C0OPS";

/**
 * A run a dead worker left `running` that no worker will continue (with Redis the queue hands a
 * dead worker's job out once; a second death fails it): the background sweep marks it failed once
 * it is older than a turn plus the queue's hand-over time, finishes its event and tells the thread,
 * once, whichever replicas sweep. Real Postgres, Redis and the Slack emulator; the crash is the state
 * it leaves (the run `running`, its last checkpoint long ago, its event unfinished).
 */
describe.each([
  { mode: "Redis", redis: true },
  { mode: "embedded queue", redis: false },
])("runs nobody continues ($mode)", ({ redis }) => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let direct: pg.Pool;

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis });
    direct = testPool({ connectionString: t.db.url, max: 2 });
  }, 120_000);
  afterAll(async () => {
    await direct?.end();
    await t?.stop();
    await model.stop();
  });

  const botReplies = (ts: string) =>
    (t.thread(CHANNEL, ts) ?? []).filter((m) => m.user === "U0HERMES" && m.ts !== ts);

  /** A turn that ran, then rewound to what a worker dying mid-run leaves, its last update `ageS` ago. */
  async function deadRun(text: string, ageS: number) {
    model.enqueue(answer(`Answered: ${text}`));
    const d = await t.sender.appMention({ user: "U0USER1", channel: CHANNEL, text: `<@U0HERMES> ${text}` });
    const ts = d.message!.ts;
    await waitFor(() => botReplies(ts).find((m) => m.text === `Answered: ${text}`), 30_000, "the answer");
    const run = await waitFor(
      async () =>
        (await t.hermes.services.storage.runs.forEvent(d.eventId!))?.status === "completed" && d.eventId,
      30_000,
      "the finished run",
    );
    expect(run).toBeTruthy();
    await direct.query(
      `update runs set status = 'running', finished_at = null, updated_at = now() - make_interval(secs => $2)
       where event_id = $1`,
      [d.eventId, ageS],
    );
    await direct.query("update slack_events set status = 'received' where event_id = $1", [d.eventId]);
    const runId = (await t.hermes.services.storage.runs.forEvent(d.eventId!))!.runId;
    return { ts, eventId: d.eventId!, runId };
  }
  const runRow = async (runId: string) =>
    (
      await direct.query<{ status: string; stop_reason: string | null; finished: boolean }>(
        "select status, stop_reason, finished_at is not null as finished from runs where id = $1",
        [runId],
      )
    ).rows[0];
  const eventStatus = async (eventId: string) =>
    (await direct.query<{ status: string }>("select status from slack_events where event_id = $1", [eventId]))
      .rows[0]?.status;

  it(redis
    ? "a run left running past a turn and the queue's hand-over is failed, its event finished, its thread told once"
    : "embedded: left alone (start-up continues every running run of the one process)", async () => {
    // Older than the 300 s turn, 90 s of hand-over (the 60 s lock, then its stalled check) and a minute.
    const dead = await deadRun(`dead-run ${redis}`, 3600);
    // A run updated moments ago may be on a live worker: never touched.
    const live = await deadRun(`live-run ${redis}`, 5);
    const before = botReplies(dead.ts).length;

    // Two replicas sweeping at the same moment.
    const swept = await Promise.all([
      abandonStaleRuns(t.hermes.services),
      abandonStaleRuns(t.hermes.services),
    ]);
    if (!redis) {
      expect(swept).toEqual([0, 0]);
      expect((await runRow(dead.runId))!.status).toBe("running");
      return;
    }
    expect(swept.sort()).toEqual([0, 1]);
    expect(await runRow(dead.runId)).toEqual({
      status: "failed",
      stop_reason: ABANDONED_REASON,
      finished: true,
    });
    expect(await eventStatus(dead.eventId)).toBe("failed");
    const told = await waitFor(
      () =>
        botReplies(dead.ts)
          .slice(before)
          .find((m) => m.text.includes("stopped when the process")),
      30_000,
      "the thread is told",
    );
    expect(told.text).toContain(dead.runId);
    expect(told.text).toContain("please ask again");

    expect((await runRow(live.runId))!.status).toBe("running");
    expect(await eventStatus(live.eventId)).toBe("received");
    // A later sweep finds nothing more to do, and the thread is not told twice.
    expect(await abandonStaleRuns(t.hermes.services)).toBe(0);
    expect(botReplies(dead.ts).filter((m) => m.text.includes("stopped when the process"))).toHaveLength(1);

    // A stale run whose turn job is still queued (handed back, waiting behind a long backlog) is left
    // for that job to continue. The workers are paused, so the job stays waiting.
    const queued = await deadRun(`queued-run ${redis}`, 3600);
    await t.hermes.services.queue.pause();
    const { sessionKey } = (await t.hermes.services.storage.runs.get(queued.runId))!;
    const jobId = `turn:${queued.eventId}`;
    await t.hermes.services.queue.enqueue(
      turnJob({
        sessionKey,
        channelId: CHANNEL,
        threadTs: queued.ts,
        messageTs: queued.ts,
        userId: "U0USER1",
        eventId: queued.eventId,
        text: "<@U0HERMES> queued-run",
      }),
      { jobId },
    );
    expect(await t.hermes.services.queue.isPending(jobId)).toBe(true);
    expect(await abandonStaleRuns(t.hermes.services)).toBe(0);
    expect((await runRow(queued.runId))!.status).toBe("running");
  }, 120_000);
});
