import { setTimeout as sleep } from "node:timers/promises";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { fromBullJobId, toBullJobId } from "../../src/queue/bullmq-turn-queue.ts";
import type { QueueJob } from "../../src/queue/jobs.ts";
import { testRedisUrl } from "../helpers/redis.ts";
import { bullmqTestBackend, captureLogger, turnJob, waitFor } from "../helpers/redis-queue.ts";

const backend = bullmqTestBackend("bullmq-queue");
const rawClients: Redis[] = [];
afterAll(async () => {
  await backend.cleanup();
  for (const client of rawClients) client.disconnect();
});

/** A bare BullMQ client on the same queue: another version's producer, or a worker that dies. */
function rawConnection(): Redis {
  const client = new Redis(testRedisUrl, { maxRetriesPerRequest: null });
  rawClients.push(client);
  return client;
}

describe("BullMQ TurnQueue", () => {
  it("two workers (two connections, as two processes) run each of 50 jobs exactly once", async () => {
    const runs = new Map<string, string[]>();
    const record = (worker: string) => async (job: QueueJob) => {
      if (job.type !== "turn") return;
      await sleep(5);
      runs.set(job.eventId, [...(runs.get(job.eventId) ?? []), worker]);
    };
    const a = backend.open("shared");
    const b = backend.open("shared");
    await Promise.all([
      a.process(record("a"), { concurrency: 4 }),
      b.process(record("b"), { concurrency: 4 }),
    ]);
    const producer = backend.open("shared");
    const events: string[] = [];
    for (let i = 0; i < 50; i++) {
      const job = turnJob();
      events.push(job.eventId);
      await producer.enqueue(job);
    }
    await waitFor("all 50 jobs", () => runs.size === 50);
    await sleep(200);
    expect([...runs.keys()].sort()).toEqual([...events].sort());
    expect([...runs.values()].every((workers) => workers.length === 1)).toBe(true);
    const byA = [...runs.values()].filter(([worker]) => worker === "a").length;
    expect(byA).toBeGreaterThan(0);
    expect(byA).toBeLessThan(50);
  });

  it("drops a job whose data is invalid (another producer's version) with a log, and goes on", async () => {
    const { logger, lines } = captureLogger();
    const queue = backend.open("invalid", { logger });
    const seen: QueueJob[] = [];
    await queue.process(async (job) => void seen.push(job));
    const raw = new Queue("invalid", { connection: rawConnection(), prefix: backend.prefix });
    await raw.add("turn", { type: "turn", sessionKey: "T1:C1:1.1", text: 42 }, { removeOnComplete: true });
    await raw.add("reminder", { type: "reminder" }, { removeOnComplete: true });
    const valid = turnJob();
    await queue.enqueue(valid);
    await waitFor("the valid job", () => seen.length === 1);
    expect(seen).toEqual([valid]);
    const dropped = lines.filter((line) => line.msg === "dropped an invalid queue job");
    expect(dropped.map((line) => line.jobType)).toEqual(["turn", "reminder"]);
    expect(String(dropped[0]?.issues)).toMatch(/text/);
    expect(await queue.counts()).toMatchObject({ failed: 0 });
    await raw.close();
  });

  it("runs again, on another worker, a job whose worker died", async () => {
    const producer = backend.open("stalled");
    const jobId = await producer.enqueue(turnJob({ text: "orphan" }), { jobId: "turn:orphan" });
    // A worker that takes the job and dies: no more lock renewals, nothing finishes the job.
    let taken = false;
    const dying = new Worker(
      "stalled",
      async () => {
        taken = true;
        await new Promise(() => {});
      },
      { connection: rawConnection(), prefix: backend.prefix, lockDuration: 300, stalledInterval: 200 },
    );
    await waitFor("the dying worker to take the job", () => taken);
    await dying.close(true);

    const { logger, lines } = captureLogger();
    const survivor = backend.open("stalled", { logger, lockDurationMs: 300, stalledIntervalMs: 200 });
    const seen: string[] = [];
    await survivor.process(async (job, context) => {
      if (job.type === "turn") seen.push(`${context.jobId}:${job.text}`);
    });
    await waitFor("the stalled job to run again", () => seen.length === 1, 5_000);
    expect(seen).toEqual([`${jobId}:orphan`]);
    expect(lines.some((line) => line.msg.includes("stalled") && line.jobId === jobId)).toBe(true);
  });

  it("escapes callers' job ids for BullMQ (no ':' and no integers) and reads them back", () => {
    for (const id of ["turn:T1:C1:1700000000.000100", "12345", "h-x", "résumé/1 %"]) {
      const bullId = toBullJobId(id);
      expect(bullId).not.toContain(":");
      expect(`${Number.parseInt(bullId, 10)}`).not.toBe(bullId);
      expect(fromBullJobId(bullId)).toBe(id);
    }
    expect(fromBullJobId("17")).toBe("17"); // BullMQ's own ids pass through
  });
});
