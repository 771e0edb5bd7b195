import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHermes, type TestHermes, waitFor } from "../helpers/hermes-harness.ts";
import { claimWaitsForLock, testPool } from "../helpers/pg.ts";
import { answer, type RecordedRequest, ScriptedModelServer } from "../helpers/scripted-model.ts";

const CHANNEL = "C0OPS";
const BURST = 200;

/**
 * The ack path under a burst, against the real app (Bolt's HTTP receiver, Postgres, Redis and
 * BullMQ, the Slack emulator over HTTP): every event is acked with 200 only once its claim — the
 * event id with its turn job, one statement — is in Postgres, so the row is there by the time Slack
 * has its answer; and every thread then gets exactly one answer (nothing lost, nothing twice). How
 * fast the acks come is measured by `npm run bench` (section 3) and `npm run bench:ack`, not here.
 */
describe("acks under a burst", () => {
  const model = new ScriptedModelServer();
  let t: TestHermes;
  let direct: pg.Pool;

  beforeAll(async () => {
    await model.start();
    t = await startTestHermes({ model, redis: true });
    direct = testPool({ connectionString: t.db.url, max: 4 });
  }, 120_000);
  afterAll(async () => {
    await direct?.end();
    await t?.stop();
    await model.stop();
  });

  it(`${BURST} events at once: each acked with 200 after its row was written, each thread answered once`, async () => {
    model.fallback = (req: RecordedRequest) => {
      const user = req.body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
      return answer(`Answer for ${/burst (\d+)/.exec(user)?.[1] ?? "?"}.`);
    };
    const rowAtAck = async (eventId: string) =>
      (
        await direct.query<{ session_key: string | null; has_job: boolean }>(
          "select session_key, payload is not null or status <> 'received' as has_job from slack_events where event_id = $1",
          [eventId],
        )
      ).rows[0];

    const deliveries = await Promise.all(
      Array.from({ length: BURST }, async (_, i) => {
        const d = await t.sender.appMention({
          user: "U0USER1",
          channel: CHANNEL,
          text: `<@U0HERMES> burst ${i}`,
        });
        // Looked up the moment the ack is in: the claim must already be there.
        const row = await rowAtAck(d.eventId!);
        return { i, status: d.status, eventId: d.eventId!, ts: d.message!.ts, row };
      }),
    );
    expect(deliveries.filter((d) => d.status !== 200)).toEqual([]);
    const unrecorded = deliveries.filter((d) => !d.row?.has_job).map((d) => d.eventId);
    expect(unrecorded).toEqual([]);
    for (const d of deliveries) expect(d.row?.session_key).toBe(`${t.ws.team.id}:${CHANNEL}:${d.ts}`);

    const answers = (ts: string) =>
      (t.thread(CHANNEL, ts) ?? [])
        .filter((m) => m.user === "U0HERMES" && m.ts !== ts && !m.text.startsWith(":hourglass_flowing_sand:"))
        .map((m) => m.text);
    // Bounds a hang only: a few hundred turns on a busy machine.
    await waitFor(() => deliveries.every((d) => answers(d.ts).length > 0), 240_000, "every thread answered");
    const wrong = deliveries
      .filter((d) => JSON.stringify(answers(d.ts)) !== JSON.stringify([`Answer for ${d.i}.`]))
      .map((d) => `${d.i}: ${JSON.stringify(answers(d.ts))}`);
    expect(wrong).toEqual([]);
    // Each event finished once, as done (its row is marked after the answer is posted).
    await waitFor(
      async () => {
        const r = await direct.query<{ n: string }>(
          "select count(*) as n from slack_events where event_id = any($1) and status = 'done'",
          [deliveries.map((d) => d.eventId)],
        );
        return Number(r.rows[0]!.n) === BURST;
      },
      60_000,
      `all ${BURST} events done`,
    );
    expect(model.requests).toHaveLength(BURST);
  }, 400_000);

  it("while the event cannot be written (its table is locked), Slack gets no answer; once written, a 200", async () => {
    model.fallback = answer("Answered after the wait.");
    const locker = await direct.connect();
    try {
      await locker.query("begin");
      // Blocks every INSERT into slack_events until the transaction ends (reads go on).
      await locker.query("lock table slack_events in share mode");
      let answered = false;
      const delivery = t.sender
        .appMention({ user: "U0USER1", channel: CHANNEL, text: "<@U0HERMES> locked" })
        .then((d) => {
          answered = true;
          return d;
        });
      await waitFor(() => claimWaitsForLock(direct), 30_000, "the claim waiting for the lock");
      // The process still serves other requests meanwhile; this one has no answer yet.
      expect((await fetch(`http://127.0.0.1:${t.hermes.port}/healthz?live`)).status).toBe(200);
      expect(answered).toBe(false);
      await locker.query("commit");
      const d = await delivery;
      expect(d.status).toBe(200);
      expect(
        (await direct.query("select 1 from slack_events where event_id = $1", [d.eventId])).rowCount,
      ).toBe(1);
      await waitFor(
        () => (t.thread(CHANNEL, d.message!.ts) ?? []).some((m) => m.text === "Answered after the wait."),
        60_000,
        "the answer",
      );
    } finally {
      await locker.query("rollback").catch(() => undefined);
      locker.release();
    }
  }, 120_000);
});
