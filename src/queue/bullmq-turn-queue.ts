import { type Job, Queue, WaitingError, Worker } from "bullmq";
import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { duplicateRedis, openRedis, type RedisClient, type RedisTarget } from "../core/redis-target.ts";
import { runJob } from "./job-runner.ts";
import { JOB_ATTEMPTS } from "./jobs.ts";
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
  settlesWithin,
  shutdownAbortReason,
  type TurnQueue,
} from "./turn-queue.ts";

export interface BullmqTurnQueueOptions {
  /**
   * Where Redis is (a URL or a target: the queue opens and closes its own connections), or a connected
   * client: used to enqueue and left open on `stop()`; the worker gets a duplicate with
   * `maxRetriesPerRequest: null`.
   */
  redis: RedisClient | RedisTarget | string;
  logger: Logger;
  /** BullMQ key prefix (keys are `<prefix>:<queueName>:…`; a hash tag on a Redis Cluster: `queueKeyPrefix`). Default `hermes`. */
  prefix?: string;
  /** Default `turns`. */
  queueName?: string;
  /** First retry delay of `resume` jobs, doubled per attempt (exponential). Default 2 s. */
  retryDelayMs?: number;
  /** Failed jobs kept in Redis for inspection. Default 1000. */
  keepFailed?: number;
  /** See `DEFAULT_LOCK_DURATION_MS`. */
  lockDurationMs?: number;
  /** How often a worker looks for jobs whose worker died. Default 30 s. */
  stalledIntervalMs?: number;
}

/**
 * How long a job stays locked without renewal. A worker renews its jobs' locks every half of this while
 * its event loop runs, so a turn may take many minutes; this only bounds how long a dead worker's job
 * stays stuck (lock expiry, then the next stalled check moves it back to wait). Long enough that a
 * blocked event loop (a big synchronous tokenization, a GC pause) does not look like a death and run a
 * turn twice; short enough that a crash costs about a minute or two.
 */
export const DEFAULT_LOCK_DURATION_MS = 60_000;
export const DEFAULT_STALLED_INTERVAL_MS = 30_000;
/**
 * A job whose worker died goes back to wait once and runs again (a turn too: the event dedupe layer
 * sees it was taken but not finished, and runs it once); a second stall fails it, so a job that kills
 * its worker cannot take the whole fleet down one process at a time.
 */
export const MAX_STALLED_COUNT = 1;

/**
 * The production queue: BullMQ on Redis, shared by every process of a deployment (roles `all`,
 * `receiver` and `worker`, see `process-role.ts`): receivers only enqueue, the others also run jobs.
 * Each job runs on exactly one worker at a time (BullMQ's lock). Completed jobs are removed, so a job id
 * can be enqueued again once its job is done; the last `keepFailed` failed ones stay for inspection.
 */
export function createBullmqTurnQueue(options: BullmqTurnQueueOptions): TurnQueue {
  const { logger } = options;
  const prefix = options.prefix ?? "hermes";
  const queueName = options.queueName ?? "turns";
  const baseRetryDelayMs = options.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const ownsClient = isTarget(options.redis);
  const client = openClient(options.redis, logger);
  const queue = new Queue(queueName, {
    connection: client,
    prefix,
    defaultJobOptions: {
      removeOnComplete: true,
      removeOnFail: { count: options.keepFailed ?? DEFAULT_KEEP_FAILED },
    },
  });
  queue.on("error", (err) => logger.warn({ err, queueName }, "queue Redis error"));

  let worker: Worker | undefined;
  let workerClient: RedisClient | undefined;
  // One controller per running job: shutdown aborts them all, a lost lock aborts its own.
  const controllers = new Map<string, AbortController>();
  // Jobs released from the worker's concurrency (`JobContext.release`): it runs `base + released`.
  let base = 1;
  let released = 0;
  let paused = false;
  let stopping = false;
  let stopped: Promise<void> | undefined;

  async function handBack(job: Job, token: string | undefined): Promise<never> {
    await job.moveToWait(token);
    logger.info({ jobId: fromBullJobId(job.id ?? ""), jobType: job.name }, "queue job handed back");
    throw new WaitingError();
  }

  async function processJob(job: Job, token: string | undefined, handler: JobHandler): Promise<void> {
    const bullId = job.id ?? "";
    // Fetched as the worker paused or stopped (a blocked fetch can still return one): give it back.
    if (paused || stopping) await handBack(job, token);
    const controller = new AbortController();
    controllers.set(bullId, controller);
    let isReleased = false;
    const setReleased = (by: 1 | -1) => {
      released += by;
      if (worker) worker.concurrency = base + released;
    };
    try {
      const outcome = await runJob({
        data: job.data,
        jobId: fromBullJobId(bullId),
        attempt: job.attemptsMade + 1,
        signal: controller.signal,
        handler,
        logger,
        release: () => {
          if (isReleased || released >= base * RELEASED_PER_SLOT) return;
          isReleased = true;
          setReleased(1);
        },
      });
      if (outcome.kind !== "failed") return;
      if (outcome.aborted && stopping) await handBack(job, token);
      throw outcome.error; // BullMQ retries it if its job has attempts left, else moves it to failed
    } finally {
      controllers.delete(bullId);
      if (isReleased) setReleased(-1);
    }
  }

  async function shutDown(timeoutMs: number, abortGraceMs: number): Promise<void> {
    stopping = true;
    if (worker && workerClient) {
      const connection = workerClient;
      const closeConnection = () => quit(connection);
      // Not forced: stops fetching, then waits for the running jobs to finish (or be handed back).
      const closing = worker.close().then(closeConnection, closeConnection);
      if (!(await settlesWithin(closing, timeoutMs))) {
        logger.warn(
          { jobIds: [...controllers.keys()], timeoutMs },
          "queue stop: jobs still running, aborting them",
        );
        for (const controller of controllers.values()) controller.abort(shutdownAbortReason());
        if (!(await settlesWithin(closing, abortGraceMs))) {
          // Their locks stay renewed while they run; if the process exits first, the locks expire and
          // the stalled check gives the jobs to another worker. Exit the process after stop().
          logger.warn(
            { jobIds: [...controllers.keys()] },
            "queue stop: jobs ignored their abort signal; the worker connection closes when they end",
          );
        }
      }
    }
    await queue.close().catch((err: unknown) => logger.warn({ err }, "closing the queue failed"));
    if (ownsClient) await quit(client);
  }

  return {
    async enqueue(job, enqueueOptions = {}) {
      if (stopping) throw queueStoppedError();
      const checked = checkEnqueue(job, enqueueOptions);
      const attempts = JOB_ATTEMPTS[checked.type];
      try {
        const added = await queue.add(checked.type, checked, {
          jobId: enqueueOptions.jobId === undefined ? undefined : toBullJobId(enqueueOptions.jobId),
          attempts,
          backoff: attempts > 1 ? { type: "exponential", delay: baseRetryDelayMs } : undefined,
        });
        return fromBullJobId(added.id ?? "");
      } catch (cause) {
        logger.error({ err: cause, jobType: checked.type, jobId: enqueueOptions.jobId }, "enqueue failed");
        const message = "I could not queue this request; please try again in a moment.";
        throw new HermesError("storage_unavailable", message, { cause });
      }
    },

    async process(handler, processOptions = {}) {
      if (stopping) throw queueStoppedError();
      if (worker) throw new HermesError("bad_request", "This queue already has a handler.");
      const concurrency = checkConcurrency(processOptions.concurrency);
      base = concurrency;
      paused = false;
      workerClient = isTarget(options.redis)
        ? openRedis(targetOf(options.redis), { maxRetriesPerRequest: null })
        : duplicateRedis(options.redis, { maxRetriesPerRequest: null });
      worker = new Worker(queueName, (job, token) => processJob(job, token, handler), {
        connection: workerClient,
        prefix,
        concurrency,
        lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
        stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
        maxStalledCount: MAX_STALLED_COUNT,
      });
      worker.on("error", (err) => logger.warn({ err, queueName }, "queue worker Redis error"));
      worker.on("stalled", (jobId) =>
        logger.warn(
          { jobId: fromBullJobId(jobId) },
          "queue job stalled (its worker died); moved back to wait",
        ),
      );
      worker.on("failed", (job, err) => {
        // Failures of our handlers are logged by runJob; this one never reached a handler.
        if (err.name === "UnrecoverableError")
          logger.error({ err, jobId: job?.id && fromBullJobId(job.id) }, "queue job failed");
      });
      worker.on("lockRenewalFailed", (jobIds) => {
        for (const jobId of jobIds) {
          logger.warn(
            { jobId: fromBullJobId(jobId) },
            "queue job lost its lock; aborting it (another worker may take it)",
          );
          controllers
            .get(jobId)
            ?.abort(new HermesError("storage_unavailable", "This job lost its queue lock."));
        }
      });
      await worker.waitUntilReady();
    },

    async pause() {
      paused = true;
      await worker?.pause(true);
    },

    stop(stopOptions = {}) {
      stopped ??= shutDown(
        stopOptions.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS,
        stopOptions.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS,
      );
      return stopped;
    },

    async counts() {
      const counts = await queue
        .getJobCounts("waiting", "prioritized", "delayed", "active", "failed")
        .catch((cause: unknown) => {
          throw new HermesError("storage_unavailable", "The job queue (Redis) cannot be reached.", { cause });
        });
      return {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        delayed: counts.delayed ?? 0,
        active: counts.active ?? 0,
        failed: counts.failed ?? 0,
      };
    },

    async oldest() {
      // Oldest first (`asc`): one job of each list.
      const [waiting, active] = await Promise.all([
        queue.getJobs(["waiting", "prioritized"], 0, 0, true),
        queue.getJobs(["active"], 0, 0, true),
      ]).catch((cause: unknown) => {
        throw new HermesError("storage_unavailable", "The job queue (Redis) cannot be reached.", { cause });
      });
      const since = (
        jobs: Array<{ timestamp: number; processedOn?: number | undefined } | undefined>,
        started: boolean,
      ) => {
        let min: number | undefined;
        for (const j of jobs) {
          const at = j && (started ? (j.processedOn ?? j.timestamp) : j.timestamp);
          if (at !== undefined && (min === undefined || at < min)) min = at;
        }
        return min;
      };
      return { waiting: since(waiting, false), active: since(active, true) };
    },

    async isPending(jobId) {
      const state = await queue.getJobState(toBullJobId(jobId)).catch((cause: unknown) => {
        throw new HermesError("storage_unavailable", "The job queue (Redis) cannot be reached.", { cause });
      });
      return PENDING_STATES.has(state);
    },
  };
}

/** BullMQ's states of a job that will still run (or is running). */
const PENDING_STATES = new Set<string>(["waiting", "prioritized", "waiting-children", "delayed", "active"]);

async function quit(client: RedisClient): Promise<void> {
  await client.quit().catch(() => client.disconnect());
}

function isTarget(redis: BullmqTurnQueueOptions["redis"]): redis is RedisTarget | string {
  return typeof redis === "string" || (typeof redis === "object" && "url" in redis && "cluster" in redis);
}

function targetOf(redis: RedisTarget | string): RedisTarget {
  return typeof redis === "string" ? { url: redis, cluster: false } : redis;
}

function openClient(redis: BullmqTurnQueueOptions["redis"], logger: Logger): RedisClient {
  if (!isTarget(redis)) return redis;
  // Enqueueing is on the request path: fail within a few retries rather than wait for Redis forever.
  const client = openRedis(targetOf(redis), { maxRetriesPerRequest: 2 });
  client.on("error", (err: unknown) => logger.debug({ err }, "queue Redis connection error"));
  return client;
}

// BullMQ refuses custom ids that contain ":" or look like integers; callers' ids (event ids, session
// keys) may do both, so they are escaped and marked.
const CUSTOM_ID_MARK = "h-";

export function toBullJobId(jobId: string): string {
  return `${CUSTOM_ID_MARK}${encodeURIComponent(jobId)}`;
}

export function fromBullJobId(bullId: string): string {
  return bullId.startsWith(CUSTOM_ID_MARK) ? decodeURIComponent(bullId.slice(CUSTOM_ID_MARK.length)) : bullId;
}
