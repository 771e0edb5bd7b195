import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDurableTurnQueue } from "../../src/queue/durable-turn-queue.ts";
import type { QueueJob } from "../../src/queue/jobs.ts";
import { createMemoryTurnQueue } from "../../src/queue/memory-turn-queue.ts";
import { createEventDedupe, type EventDedupe } from "../../src/store/event-dedupe.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { captureLogger, turnJob, waitFor } from "../helpers/redis-queue.ts";

/**
 * The embedded queue keeps each turn job in its event's row until the event finishes; a new process
 * picks the unfinished ones up, each exactly once, and never a finished one.
 */
describe.each(DRIVERS)("durable turn queue on %s", (kind) => {
  let store: TestStore;
  let events: EventDedupe;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 10 });
    events = createEventDedupe(store.handle);
  });
  afterAll(() => store?.cleanup());

  const open = () => {
    const { logger } = captureLogger();
    const inner = createMemoryTurnQueue({ logger });
    return createDurableTurnQueue({ queue: inner, pending: events, logger });
  };
  // A process that starts after another's claims: PGlite's clock ticks in milliseconds, and a start in
  // the very millisecond of a claim does not find that claim older than itself (nor could a real one).
  const aMillisecondLater = async () => {
    const t = Date.now();
    await waitFor("the next millisecond", () => Date.now() > t);
  };

  it("keeps turn jobs until their event finishes; a new process runs the unfinished ones once", async () => {
    const a = turnJob({ text: "kept a" });
    const b = turnJob({ text: "kept b" });
    const c = turnJob({ text: "finished c" });
    await events.claim(a.eventId, { sessionKey: a.sessionKey, staleAfterMs: 60_000 });
    // The first process: queued three turns (no worker yet), finished one, then died.
    const first = open();
    for (const job of [a, b, c]) await first.enqueue(job, { jobId: `turn:${job.eventId}` });
    await first.enqueue({ type: "resume", runId: "run_x", reason: "decided" });
    await events.finish(c.eventId, "done");
    await first.stop({ timeoutMs: 100 });

    const kept = await execSql<{ event_id: string; status: string }>(
      store.handle.db,
      `SELECT event_id, status FROM slack_events WHERE payload IS NOT NULL ORDER BY event_id`,
    );
    expect(kept.map((r) => r.event_id).sort()).toEqual([a.eventId, b.eventId].sort());

    // Two processes start at once: each unfinished turn goes to exactly one of them.
    await aMillisecondLater();
    const ran: QueueJob[][] = [[], []];
    const next = [open(), open()];
    await Promise.all(
      next.map((q, i) =>
        q.process(async (job) => {
          if (job.type === "turn") await events.finish(job.eventId, "done");
          ran[i]!.push(job);
        }),
      ),
    );
    const recovered = await Promise.all(next.map((q) => q.recoverPending()));
    expect(recovered.flat().sort()).toEqual([a.eventId, b.eventId].sort());
    await waitFor("both kept turns ran", () => ran.flat().length === 2);
    expect(
      ran
        .flat()
        .map((j) => (j.type === "turn" ? j.text : j.type))
        .sort(),
    ).toEqual(["kept a", "kept b"]);
    // A later start finds nothing left: both finished.
    expect(await open().recoverPending()).toEqual([]);
    for (const q of next) await q.stop({ timeoutMs: 100 });
  });

  it("a finished event keeps no job, and an invalid kept job is marked failed instead of run", async () => {
    const job = turnJob();
    const q = open();
    await q.enqueue(job);
    await events.finish(job.eventId, "done");
    await execSql(
      store.handle.db,
      `INSERT INTO slack_events (event_id, payload, received_at)
        VALUES ('Ev_bad', '{"type":"turn"}', now() - interval '1 minute')`,
    );
    expect(await q.recoverPending()).toEqual([]);
    expect(await events.isFinished("Ev_bad")).toBe(true);
    const rows = await execSql<{ payload: unknown }>(
      store.handle.db,
      `SELECT payload FROM slack_events WHERE event_id = '${job.eventId}'`,
    );
    expect(rows).toEqual([{ payload: null }]);
    await q.stop({ timeoutMs: 100 });
  });

  it("a job its claim stored gets its meta beside the enqueue; failing to write it leaves the turn queued", async () => {
    const job = turnJob({ text: "claimed first" });
    await events.claim(job.eventId, { sessionKey: job.sessionKey, staleAfterMs: 60_000, payload: job });
    const meta = { placeholderTs: "1700000001.000100", inThread: false };
    const { logger, lines } = captureLogger();
    const ran: QueueJob[] = [];
    const q = createDurableTurnQueue({ queue: createMemoryTurnQueue({ logger }), pending: events, logger });
    const run = async (j: QueueJob) => {
      if (j.type === "turn") await events.finish(j.eventId, "done");
      ran.push(j);
    };
    // Queued before a worker takes it, so the row is read before the turn finishes it.
    await q.enqueue({ ...job, meta }, { jobId: `turn:${job.eventId}`, keptByClaim: "meta" });
    const kept = await execSql<{ payload: { meta?: unknown } }>(
      store.handle.db,
      `SELECT payload FROM slack_events WHERE event_id = '${job.eventId}'`,
    );
    expect(kept[0]?.payload.meta).toEqual(meta);
    await q.process(run);
    await waitFor("the turn ran", () => ran.length === 1);
    await q.stop({ timeoutMs: 100 });

    // The same with a database that is gone: the enqueue still succeeds and the turn runs; the
    // claim's row (here: another event, claimed on the live store) keeps the job without its meta.
    const other = turnJob({ text: "claimed, meta lost" });
    await events.claim(other.eventId, { sessionKey: other.sessionKey, staleAfterMs: 60_000, payload: other });
    const gone = await openTestStore(kind);
    await gone.cleanup();
    const broken = createDurableTurnQueue({
      queue: createMemoryTurnQueue({ logger }),
      pending: createEventDedupe(gone.handle),
      logger,
    });
    await broken.enqueue({ ...other, meta }, { jobId: `turn:${other.eventId}`, keptByClaim: "meta" });
    expect(
      lines.some((l) => l.level === 40 && l.eventId === other.eventId && /meta with its event/.test(l.msg)),
    ).toBe(true);
    const claimed = await execSql<{ payload: { text: string; meta?: unknown } }>(
      store.handle.db,
      `SELECT payload FROM slack_events WHERE event_id = '${other.eventId}'`,
    );
    expect(claimed[0]?.payload).toMatchObject({ text: "claimed, meta lost" });
    expect(claimed[0]?.payload.meta).toBeUndefined();
    await broken.process(run);
    await waitFor("the second turn ran", () => ran.length === 2);
    expect(ran[1]).toMatchObject({ eventId: other.eventId, meta });
    // Without the flag a failed write still fails the enqueue (the user is told), and nothing runs.
    const third = turnJob();
    await expect(broken.enqueue(third, { jobId: `turn:${third.eventId}` })).rejects.toThrow();
    await broken.stop({ timeoutMs: 100 });
    expect(ran.map((j) => (j.type === "turn" ? j.eventId : j.type))).toEqual([job.eventId, other.eventId]);
  });

  it("a job exactly as its claim stored it is queued without another write, and recovers as claimed", async () => {
    const job = { ...turnJob({ text: "claimed whole" }), meta: { inThread: false } };
    await events.claim(job.eventId, { sessionKey: job.sessionKey, staleAfterMs: 60_000, payload: job });
    const { logger } = captureLogger();
    // A store that is gone: a write would fail the enqueue, so the enqueue succeeding shows none was made.
    const gone = await openTestStore(kind);
    await gone.cleanup();
    const q = createDurableTurnQueue({
      queue: createMemoryTurnQueue({ logger }),
      pending: createEventDedupe(gone.handle),
      logger,
    });
    await q.enqueue(job, { jobId: `turn:${job.eventId}`, keptByClaim: "whole" });
    expect(await q.isPending(`turn:${job.eventId}`)).toBe(true);
    await q.stop({ timeoutMs: 100 });
    const kept = await execSql<{ payload: unknown }>(
      store.handle.db,
      `SELECT payload FROM slack_events WHERE event_id = '${job.eventId}'`,
    );
    expect(kept[0]?.payload).toEqual(job);
    await events.finish(job.eventId, "done");
  });

  it("a kept turn from an assistant thread comes back with its meta, so it shows the status line again", async () => {
    const meta = { assistantThread: true, inThread: false, untrustedContext: "<untrusted>x</untrusted>" };
    const job = { ...turnJob({ text: "in the split view" }), meta };
    const first = open();
    await first.enqueue(job, { jobId: `turn:${job.eventId}` });
    await first.stop({ timeoutMs: 100 });

    await aMillisecondLater();
    const ran: QueueJob[] = [];
    const next = open();
    await next.process(async (j) => {
      if (j.type === "turn") await events.finish(j.eventId, "done");
      ran.push(j);
    });
    expect(await next.recoverPending()).toEqual([job.eventId]);
    await waitFor("the kept turn ran", () => ran.length === 1);
    expect(ran[0]).toMatchObject({ type: "turn", eventId: job.eventId, meta });
    await next.stop({ timeoutMs: 100 });
  });
});
