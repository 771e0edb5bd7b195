import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { type QueueJob, queueJobSchema } from "./jobs.ts";

export interface JobContext {
  /** Fires when the job must stop: shutdown's grace period ran out, or (BullMQ) the job's lock was lost. */
  signal: AbortSignal;
  /** A child logger carrying the job's id, type and session / run id. */
  logger: Logger;
  /** The id given to `enqueue` (or the generated one). */
  jobId: string;
  /** 1 for the first run, 2 for the retry of a job that threw (`resume` only). */
  attempt: number;
  /**
   * The job's remaining work only waits on Slack (its answer, paced at about one message per second
   * per channel): from now on it no longer counts against the worker's concurrency, so the next job
   * starts instead of waiting behind a delivery. The job stays active (and locked) until it returns.
   * At most `RELEASED_PER_SLOT` × concurrency jobs are released at once; beyond, this does nothing.
   */
  release(): void;
}

/** Released jobs (see `JobContext.release`) a worker holds at most, per unit of its concurrency. */
export const RELEASED_PER_SLOT = 8;

export type JobHandler = (job: QueueJob, context: JobContext) => Promise<void>;

export interface EnqueueOptions {
  /**
   * Dedupe key: while a job with this id is known (waiting, delayed for a retry, running, or among the
   * kept failed jobs), enqueueing it again does nothing. Once it completes, the id is free again.
   */
  jobId?: string;
  /**
   * A turn job whose event's claim stored it already (`events.claim` with the job as payload): a
   * durable queue writes nothing more (`whole`: the job is the one claimed), or writes what was added
   * since (`meta`) beside the enqueue instead of before it, a failure of that write logged, not thrown
   * (a recovery would run the job as claimed). Other queues ignore it.
   */
  keptByClaim?: "whole" | "meta";
}

export interface ProcessOptions {
  /** Jobs this process runs at once. Default 1. */
  concurrency?: number;
}

export interface StopOptions {
  /** How long running jobs may take to finish before their signals fire. Default 30 s. */
  timeoutMs?: number;
  /** After the signals fire, how long handlers get to unwind before the queue lets go. Default 5 s. */
  abortGraceMs?: number;
}

export interface QueueCounts {
  waiting: number;
  /** Waiting for a retry's backoff. */
  delayed: number;
  active: number;
  /** Kept for inspection (the last `keepFailed`). */
  failed: number;
}

export interface QueueOldest {
  waiting?: number | undefined;
  active?: number | undefined;
}

/**
 * The work queue between the Slack receiver and the agent: turns (schedule fires enqueue turns too)
 * and resumes after approvals. BullMQ on Redis when several processes share the work; in process
 * memory for the embedded single-process default. Both validate jobs on the way in and on the way out
 * (an invalid job is logged and dropped), dedupe by `jobId`, retry only `resume` jobs (see
 * `JOB_ATTEMPTS`), and log a throwing handler without stopping the worker.
 */
export interface TurnQueue {
  /** Adds a job; resolves to its id. Refuses invalid jobs (`bad_request`) and any job after `stop()`. */
  enqueue(job: QueueJob, options?: EnqueueOptions): Promise<string>;
  /**
   * Starts running jobs with `handler` (once per queue object); resolves when the worker is taking jobs.
   * A producer-only process (the receiver beside separate workers) never calls it.
   */
  process(handler: JobHandler, options?: ProcessOptions): Promise<void>;
  /** Stops taking new jobs; running ones go on, enqueueing still works. The first step of shutdown. */
  pause(): Promise<void>;
  /**
   * Graceful shutdown: refuse enqueues, take no new jobs, let running jobs finish for `timeoutMs`, then
   * fire their signals and hand back those that stop (they run again on the next start: BullMQ puts
   * them back at the head of the wait list; in memory they are kept and logged, and die with the
   * process), and close what the queue opened. Safe to call twice.
   */
  stop(options?: StopOptions): Promise<void>;
  /** For `/healthz` and tests. */
  counts(): Promise<QueueCounts>;
  /** For `/metrics`: when the oldest waiting job was enqueued and the oldest active one started (epoch ms). */
  oldest?(): Promise<QueueOldest>;
  /** Whether a job with this id is waiting, delayed for a retry or running (not done, failed or unknown). */
  isPending(jobId: string): Promise<boolean>;
}

export const DEFAULT_STOP_TIMEOUT_MS = 30_000;
export const DEFAULT_ABORT_GRACE_MS = 5_000;
/** First retry delay; BullMQ's exponential backoff doubles it per attempt. */
export const DEFAULT_RETRY_DELAY_MS = 2_000;
export const DEFAULT_KEEP_FAILED = 1_000;

export function queueStoppedError(): HermesError {
  return new HermesError(
    "storage_unavailable",
    "Hermes is shutting down and is not taking new requests; please try again in a moment.",
  );
}

/** The reason a signal carries when shutdown aborts a running job. */
export function shutdownAbortReason(): HermesError {
  return new HermesError("storage_unavailable", "Hermes is shutting down; this job will run again.");
}

/** Checks a job and its options before they enter a queue; returns a copy of the job without unknown keys. */
export function checkEnqueue(job: QueueJob, options: EnqueueOptions): QueueJob {
  if (options.jobId !== undefined && options.jobId.length === 0) {
    throw new HermesError("bad_request", "A queue job id must not be empty.");
  }
  const parsed = queueJobSchema.safeParse(job);
  if (!parsed.success) {
    const type = String((job as { type?: unknown } | null)?.type ?? "queue");
    const message = `This ${type} job is not valid, so it was not queued.`;
    throw new HermesError("bad_request", message, { cause: parsed.error });
  }
  return parsed.data;
}

export function checkConcurrency(concurrency: number | undefined): number {
  const value = concurrency ?? 1;
  if (!Number.isInteger(value) || value < 1) {
    throw new HermesError(
      "bad_request",
      `Queue concurrency must be a whole number of at least 1, not ${value}.`,
    );
  }
  return value;
}

/** BullMQ's exponential backoff: `delay`, then twice that, and so on (`attempt` is the one that failed). */
export function retryDelayMs(baseDelayMs: number, attempt: number): number {
  return Math.round(baseDelayMs * 2 ** (attempt - 1));
}

/** Whether `work` settles within `ms` (the timer keeps shutdown alive until then, and is cleared after). */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
