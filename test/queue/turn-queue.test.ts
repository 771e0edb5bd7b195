import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { isHermesError } from "../../src/core/errors.ts";
import type { Logger } from "../../src/core/logger.ts";
import type { QueueJob, ResumeJob } from "../../src/queue/jobs.ts";
import { createMemoryTurnQueue } from "../../src/queue/memory-turn-queue.ts";
import type { JobContext, TurnQueue } from "../../src/queue/turn-queue.ts";
import { bullmqTestBackend, captureLogger, turnJob, waitFor } from "../helpers/redis-queue.ts";

interface OpenOptions {
  logger?: Logger;
  retryDelayMs?: number;
}

interface Backend {
  name: "memory" | "bullmq";
  /** A queue object on queue `name`. BullMQ: a new one shares the jobs, like another process; memory: new. */
  open(name: string, options?: OpenOptions): TurnQueue;
  cleanup(): Promise<void>;
}

function memoryBackend(): Backend {
  const opened: TurnQueue[] = [];
  return {
    name: "memory",
    open(_name, options = {}) {
      const queue = createMemoryTurnQueue({ logger: options.logger ?? captureLogger().logger, ...options });
      opened.push(queue);
      return queue;
    },
    async cleanup() {
      await Promise.all(opened.map((queue) => queue.stop({ timeoutMs: 1_000, abortGraceMs: 500 })));
    },
  };
}

function bullmqBackend(): Backend {
  const backend = bullmqTestBackend("turn-queue");
  return {
    name: "bullmq",
    open: (name, options = {}) => backend.open(name, options),
    cleanup: backend.cleanup,
  };
}

const backends = [memoryBackend(), bullmqBackend()];
afterAll(async () => {
  await Promise.all(backends.map((backend) => backend.cleanup()));
});

let queueCounter = 0;
const newQueueName = () => `q${++queueCounter}`;

interface Run {
  job: QueueJob;
  context: JobContext;
}

const resumeJob = (runId: string): ResumeJob => ({
  type: "resume",
  runId,
  approvalId: "A1",
  reason: "decided",
});

describe.each(backends)("TurnQueue ($name)", (backend) => {
  it("runs an enqueued job once, with its payload, id and first attempt", async () => {
    const queue = backend.open(newQueueName());
    const runs: Run[] = [];
    await queue.process(async (job, context) => void runs.push({ job, context }));
    const job = turnJob({ meta: { files: [{ id: "F0123ABCD", name: "error.png" }] } });
    const jobId = await queue.enqueue(job);
    await waitFor("the job to run", () => runs.length === 1);
    await sleep(100);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.job).toEqual(job);
    expect(runs[0]?.context).toMatchObject({ jobId, attempt: 1 });
    expect(runs[0]?.context.signal.aborted).toBe(false);
    await waitFor("the job to be removed", async () => (await queue.counts()).active === 0);
    expect(await queue.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
  });

  it("dedupes by jobId while the first job is known, and frees the id once it completes", async () => {
    const queue = backend.open(newQueueName());
    const jobId = "turn:T0001:Ev0001"; // colons, as in real ids
    const first = turnJob({ text: "first" });
    expect(await queue.enqueue(first, { jobId })).toBe(jobId);
    expect(await queue.enqueue(turnJob({ text: "second" }), { jobId })).toBe(jobId);
    const runs: Run[] = [];
    await queue.process(async (job, context) => void runs.push({ job, context }));
    await waitFor("the job to run", () => runs.length === 1);
    await sleep(150);
    expect(runs.map((run) => run.job)).toEqual([first]);
    expect(runs[0]?.context.jobId).toBe(jobId);

    await queue.enqueue(turnJob({ text: "later" }), { jobId });
    await waitFor("the id to be usable again", () => runs.length === 2);
  });

  it("isPending: true while a job waits or runs, false once it is done, failed, or was never queued", async () => {
    const queue = backend.open(newQueueName());
    const jobId = "turn:T0001:EvPENDING";
    expect(await queue.isPending(jobId)).toBe(false);
    await queue.enqueue(turnJob({ text: "pending" }), { jobId });
    expect(await queue.isPending(jobId)).toBe(true); // waiting: no worker yet
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = false;
    await queue.process(async (job) => {
      if (job.type === "turn" && job.text === "fails") throw new Error("boom");
      started = true;
      await held;
    });
    await waitFor("the job to start", () => started);
    expect(await queue.isPending(jobId)).toBe(true); // running
    release();
    await waitFor("the job to be done", async () => !(await queue.isPending(jobId)));
    // A failed turn (turns are never retried) is not pending either, though its id is still known.
    const failedId = "turn:T0001:EvFAILED";
    await queue.enqueue(turnJob({ text: "fails" }), { jobId: failedId });
    await waitFor("the failed job to settle", async () => (await queue.counts()).failed === 1);
    expect(await queue.isPending(failedId)).toBe(false);
  });

  it("never runs more than `concurrency` jobs at once", async () => {
    const queue = backend.open(newQueueName());
    let running = 0;
    let peak = 0;
    let done = 0;
    for (let i = 0; i < 6; i++) await queue.enqueue(turnJob());
    await queue.process(
      async () => {
        running++;
        peak = Math.max(peak, running);
        await sleep(80);
        running--;
        done++;
      },
      { concurrency: 2 },
    );
    await waitFor("all jobs to run", () => done === 6);
    expect(peak).toBe(2);
  });

  it("logs a throwing handler's error with the job and keeps running later jobs", async () => {
    const { logger, lines } = captureLogger();
    const queue = backend.open(newQueueName(), { logger });
    const texts: string[] = [];
    await queue.process(async (job) => {
      if (job.type === "turn" && job.text === "boom") throw new Error("handler exploded");
      if (job.type === "turn") texts.push(job.text);
    });
    const failingId = await queue.enqueue(turnJob({ text: "boom", sessionKey: "T1:C1:1.1" }));
    await queue.enqueue(turnJob({ text: "after" }));
    await waitFor("the later job", () => texts.includes("after"));
    await waitFor("the failure to be recorded", async () => (await queue.counts()).failed === 1);
    const failure = lines.find((line) => line.msg === "queue job failed");
    expect(failure).toMatchObject({
      jobId: failingId,
      jobType: "turn",
      sessionKey: "T1:C1:1.1",
      willRetry: false,
    });
    expect(failure?.err).toMatchObject({ message: "handler exploded" });
  });

  it("refuses an invalid job with bad_request and never hands it to the handler", async () => {
    const queue = backend.open(newQueueName());
    const seen: QueueJob[] = [];
    await queue.process(async (job) => void seen.push(job));
    const invalid = { ...turnJob(), sessionKey: "" } as QueueJob;
    const error = await queue.enqueue(invalid).catch((err: unknown) => err);
    expect(isHermesError(error, "bad_request")).toBe(true);
    await expect(queue.enqueue(turnJob(), { jobId: "" })).rejects.toMatchObject({ code: "bad_request" });
    const schedule = { type: "schedule", scheduleId: "S1", fireAt: "tomorrow" } as unknown as QueueJob;
    await expect(queue.enqueue(schedule)).rejects.toMatchObject({ code: "bad_request" });
    await sleep(100);
    expect(seen).toEqual([]);
  });

  it("pause(): the running job finishes, later jobs wait (enqueueing still works)", async () => {
    const queue = backend.open(newQueueName());
    const texts: string[] = [];
    let started = false;
    await queue.process(
      async (job) => {
        started = true;
        await sleep(150);
        if (job.type === "turn") texts.push(job.text);
      },
      { concurrency: 2 },
    );
    await queue.enqueue(turnJob({ text: "running" }));
    await waitFor("the job to start", () => started);
    await queue.pause();
    await queue.enqueue(turnJob({ text: "after pause" }));
    await waitFor("the running job to finish", () => texts.length === 1);
    await sleep(200);
    expect(texts).toEqual(["running"]);
    expect(await queue.counts()).toMatchObject({ waiting: 1, active: 0 });
  });

  it("stop(): lets a running job finish, refuses new enqueues, then resolves", async () => {
    const queue = backend.open(newQueueName());
    let started = false;
    let finished = false;
    await queue.process(async (_job, { signal }) => {
      started = true;
      await sleep(300);
      finished = !signal.aborted;
    });
    await queue.enqueue(turnJob());
    await waitFor("the job to start", () => started);
    const stopping = queue.stop({ timeoutMs: 5_000 });
    const refused = await queue.enqueue(turnJob()).catch((err: unknown) => err);
    expect(isHermesError(refused, "storage_unavailable")).toBe(true);
    expect((refused as Error).message).toMatch(/shutting down/);
    await stopping;
    expect(finished).toBe(true);
    await expect(queue.stop()).resolves.toBeUndefined();
  });

  it("stop(): after the timeout, aborts a running job and hands it back instead of failing it", async () => {
    const { logger, lines } = captureLogger();
    const name = newQueueName();
    const queue = backend.open(name, { logger });
    let started = false;
    await queue.process(async (_job, { signal }) => {
      started = true;
      await new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    });
    const jobId = await queue.enqueue(turnJob({ text: "long turn" }), { jobId: "turn:long" });
    await waitFor("the job to start", () => started);
    await queue.stop({ timeoutMs: 100, abortGraceMs: 2_000 });

    if (backend.name === "memory") {
      // Kept (and logged) in memory only: it dies with the process.
      expect(await queue.counts()).toMatchObject({ waiting: 1, active: 0, failed: 0 });
      const lost = lines.find((line) => line.msg.includes("lost when this process exits"));
      expect(lost?.jobs).toEqual([expect.objectContaining({ jobId, sessionKey: expect.any(String) })]);
      return;
    }
    // BullMQ: back at the head of the wait list; the next worker runs it as a first attempt.
    const next = backend.open(name);
    const runs: Run[] = [];
    await next.process(async (job, context) => void runs.push({ job, context }));
    await waitFor("the handed-back job to run again", () => runs.length === 1);
    expect(runs[0]?.context).toMatchObject({ jobId, attempt: 1 });
    expect(await next.counts()).toMatchObject({ failed: 0 });
  });

  it("stop(): resolves after timeout + grace even if a handler ignores its signal; the job still completes", async () => {
    const { logger, lines } = captureLogger();
    const name = newQueueName();
    const queue = backend.open(name, { logger });
    let started = false;
    let ended = false;
    await queue.process(async () => {
      started = true;
      await sleep(500);
      ended = true;
    });
    await queue.enqueue(turnJob());
    await waitFor("the job to start", () => started);
    const begun = Date.now();
    await queue.stop({ timeoutMs: 100, abortGraceMs: 100 });
    expect(Date.now() - begun).toBeLessThan(400);
    expect(ended).toBe(false);
    expect(lines.some((line) => line.msg.includes("ignored their abort signal"))).toBe(true);
    await waitFor("the handler to end", () => ended);
    const observer = backend.name === "bullmq" ? backend.open(name) : queue;
    await waitFor("the job to complete", async () => (await observer.counts()).active === 0);
    expect(await observer.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
  });

  it("retries a throwing resume job once, with backoff", async () => {
    const queue = backend.open(newQueueName(), { retryDelayMs: 50 });
    const attempts: number[] = [];
    await queue.process(async (_job, { attempt }) => {
      attempts.push(attempt);
      if (attempt === 1) throw new Error("Postgres blinked");
    });
    await queue.enqueue(resumeJob("R1"));
    await waitFor("the retry", () => attempts.length === 2);
    expect(attempts).toEqual([1, 2]);
    await waitFor("the job to complete", async () => (await queue.counts()).active === 0);
    expect(await queue.counts()).toEqual({ waiting: 0, delayed: 0, active: 0, failed: 0 });
  });

  it("fails a resume job after its second throw, and never retries a turn", async () => {
    const queue = backend.open(newQueueName(), { retryDelayMs: 50 });
    const runs: string[] = [];
    await queue.process(async (job) => {
      runs.push(job.type);
      throw new Error("always fails");
    });
    await queue.enqueue(turnJob());
    await queue.enqueue(resumeJob("R2"));
    await waitFor("both to fail", async () => (await queue.counts()).failed === 2);
    await sleep(300); // several backoff periods: nothing else runs
    expect(runs.filter((type) => type === "turn")).toHaveLength(1);
    expect(runs.filter((type) => type === "resume")).toHaveLength(2);
  });
});
