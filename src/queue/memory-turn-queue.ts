import { randomUUID } from "node:crypto";
import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { type JobOutcome, runJob } from "./job-runner.ts";
import { JOB_ATTEMPTS, jobLogFields, type QueueJob } from "./jobs.ts";
import {
  checkConcurrency,
  checkEnqueue,
  DEFAULT_ABORT_GRACE_MS,
  DEFAULT_KEEP_FAILED,
  DEFAULT_RETRY_DELAY_MS,
  DEFAULT_STOP_TIMEOUT_MS,
  type JobHandler,
  queueStoppedError,
  RELEASED_PER_SLOT,
  retryDelayMs,
  settlesWithin,
  shutdownAbortReason,
  type TurnQueue,
} from "./turn-queue.ts";

export interface MemoryTurnQueueOptions {
  logger: Logger;
  /** First retry delay of `resume` jobs, doubled per attempt. Default 2 s. */
  retryDelayMs?: number;
  /** Failed jobs kept (for `counts()` and, like BullMQ, as known ids for dedupe). Default 1000. */
  keepFailed?: number;
}

interface Entry {
  id: string;
  job: QueueJob;
  attempt: number;
  /** When it was first enqueued (epoch ms). */
  enqueuedAt: number;
}

interface Running {
  entry: Entry;
  controller: AbortController;
  done: Promise<void>;
  /** Its handler said it only waits on Slack now (`JobContext.release`): not counted as running. */
  released: boolean;
  /** When this attempt started (epoch ms). */
  startedAt: number;
}

/**
 * The queue of the embedded single-process default: FIFO, at most `concurrency` jobs running at once
 * (a job that only waits on Slack is released from that count: `JobContext.release`), the same
 * dedupe, retry and shutdown rules as the BullMQ queue. Nothing here survives the process: jobs still
 * waiting (or handed back) at `stop()` are logged with their ids and die with it. That is acceptable
 * only because what must survive is in Postgres, from where the next start picks the work up again:
 * turn jobs kept with their Slack event (`createDurableTurnQueue` wraps this queue), runs in progress
 * with their checkpoints, paused runs and their approvals, a schedule's next fire.
 */
export function createMemoryTurnQueue(options: MemoryTurnQueueOptions): TurnQueue {
  const { logger } = options;
  const baseRetryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const keepFailed = options.keepFailed ?? DEFAULT_KEEP_FAILED;

  const waiting: Entry[] = [];
  const waitingIds = new Set<string>();
  const delayed = new Map<string, { entry: Entry; timer: NodeJS.Timeout }>();
  const active = new Map<string, Running>();
  const failed = new Map<string, Entry>();
  let handler: JobHandler | undefined;
  let concurrency = 1;
  let paused = false;
  let stopped = false;
  let stopping: Promise<void> | undefined;
  let pumpScheduled = false;
  let released = 0;

  const isKnown = (id: string) => waitingIds.has(id) || delayed.has(id) || active.has(id) || failed.has(id);

  function addWaiting(entry: Entry, atFront = false): void {
    if (atFront) waiting.unshift(entry);
    else waiting.push(entry);
    waitingIds.add(entry.id);
  }

  // Deferred so that `enqueue` returns before a handler starts, as it does with Redis in between.
  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    queueMicrotask(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (handler && !paused && active.size - released < concurrency) {
      const entry = waiting.shift();
      if (!entry) return;
      waitingIds.delete(entry.id);
      start(entry, handler);
    }
  }

  function start(entry: Entry, run: JobHandler): void {
    const controller = new AbortController();
    const running: Running = {
      entry,
      controller,
      done: Promise.resolve(),
      released: false,
      startedAt: Date.now(),
    };
    const release = () => {
      if (running.released || released >= concurrency * RELEASED_PER_SLOT || !active.has(entry.id)) return;
      running.released = true;
      released++;
      schedulePump();
    };
    active.set(entry.id, running);
    running.done = runJob({
      data: entry.job,
      jobId: entry.id,
      attempt: entry.attempt,
      signal: controller.signal,
      handler: run,
      logger,
      release,
    }).then((outcome) => settle(running, outcome));
  }

  function settle({ entry, released: wasReleased }: Running, outcome: JobOutcome): void {
    active.delete(entry.id);
    if (wasReleased) released--;
    if (outcome.kind === "failed") {
      const next = { ...entry, attempt: entry.attempt + 1 };
      if (outcome.aborted && stopped) {
        // Interrupted by shutdown: not a failed attempt. Kept at the head, as BullMQ would put it back.
        addWaiting(entry, true);
      } else if (entry.attempt < JOB_ATTEMPTS[entry.job.type]) {
        if (stopped) addWaiting(next);
        else retryLater(next, retryDelayMs(baseRetryDelayMs, entry.attempt));
      } else {
        failed.set(entry.id, entry);
        const oldest = failed.keys().next();
        if (failed.size > keepFailed && !oldest.done) failed.delete(oldest.value);
      }
    }
    schedulePump();
  }

  function retryLater(entry: Entry, ms: number): void {
    const timer = setTimeout(() => {
      delayed.delete(entry.id);
      addWaiting(entry);
      pump();
    }, ms);
    timer.unref();
    delayed.set(entry.id, { entry, timer });
  }

  async function shutDown(timeoutMs: number, abortGraceMs: number): Promise<void> {
    stopped = true;
    paused = true;
    for (const { timer } of delayed.values()) clearTimeout(timer);
    const allDone = () => Promise.all([...active.values()].map((running) => running.done));
    if (!(await settlesWithin(allDone(), timeoutMs))) {
      logger.warn({ jobIds: [...active.keys()], timeoutMs }, "queue stop: jobs still running, aborting them");
      for (const running of active.values()) running.controller.abort(shutdownAbortReason());
      if (!(await settlesWithin(allDone(), abortGraceMs))) {
        logger.warn(
          { jobIds: [...active.keys()] },
          "queue stop: jobs ignored their abort signal; leaving them",
        );
      }
    }
    const left = [...waiting, ...[...delayed.values()].map((d) => d.entry)];
    if (left.length > 0) {
      logger.warn(
        { jobs: left.map((entry) => ({ jobId: entry.id, ...jobLogFields(entry.job) })) },
        "queue stopped with jobs not run; they are lost when this process exits",
      );
    }
  }

  return {
    async enqueue(job, enqueueOptions = {}) {
      if (stopped) throw queueStoppedError();
      const checked = checkEnqueue(job, enqueueOptions);
      const id = enqueueOptions.jobId ?? randomUUID();
      if (isKnown(id)) {
        logger.debug({ jobId: id, jobType: checked.type }, "queue job already known; not added again");
        return id;
      }
      addWaiting({ id, job: checked, attempt: 1, enqueuedAt: Date.now() });
      schedulePump();
      return id;
    },

    async process(jobHandler, processOptions = {}) {
      if (stopped) throw queueStoppedError();
      if (handler) throw new HermesError("bad_request", "This queue already has a handler.");
      concurrency = checkConcurrency(processOptions.concurrency);
      handler = jobHandler;
      paused = false;
      schedulePump();
    },

    async pause() {
      paused = true;
    },

    stop(stopOptions = {}) {
      stopping ??= shutDown(
        stopOptions.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
        stopOptions.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
      );
      return stopping;
    },

    async counts() {
      return { waiting: waiting.length, delayed: delayed.size, active: active.size, failed: failed.size };
    },

    async oldest() {
      let activeSince: number | undefined;
      for (const r of active.values())
        if (activeSince === undefined || r.startedAt < activeSince) activeSince = r.startedAt;
      let waitingSince: number | undefined;
      for (const e of waiting)
        if (waitingSince === undefined || e.enqueuedAt < waitingSince) waitingSince = e.enqueuedAt;
      return { waiting: waitingSince, active: activeSince };
    },

    async isPending(jobId) {
      return waitingIds.has(jobId) || delayed.has(jobId) || active.has(jobId);
    },
  };
}
