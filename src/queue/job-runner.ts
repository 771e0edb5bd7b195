import type { Logger } from "../core/logger.ts";
import { JOB_ATTEMPTS, jobLogFields, parseQueueJob, type QueueJobType } from "./jobs.ts";
import type { JobHandler } from "./turn-queue.ts";

export type JobOutcome =
  | { kind: "completed" }
  /** The data was not a valid job: logged, and must not be retried. */
  | { kind: "dropped" }
  /** The handler threw. `aborted`: its signal had fired (shutdown or a lost lock) when it did. */
  | { kind: "failed"; error: Error; aborted: boolean; type: QueueJobType };

export interface RunJobOptions {
  data: unknown;
  jobId: string;
  attempt: number;
  signal: AbortSignal;
  handler: JobHandler;
  logger: Logger;
  /** See `JobContext.release`; the queue counts the job out of its concurrency. */
  release?: () => void;
}

/**
 * Runs one job off a queue: validates it (an invalid one is logged and dropped, never thrown), calls
 * the handler with a child logger, and turns whatever the handler does into an outcome. Never throws,
 * so a bad job or a bad handler cannot take a worker down. Failures are logged here, except those
 * after an abort: the queue decides what those mean (hand back on shutdown).
 */
export async function runJob({
  data,
  jobId,
  attempt,
  signal,
  handler,
  logger,
  release = () => undefined,
}: RunJobOptions): Promise<JobOutcome> {
  const parsed = parseQueueJob(data);
  if (!parsed.ok) {
    const type = typeof data === "object" && data !== null ? (data as { type?: unknown }).type : undefined;
    logger.error(
      { jobId, jobType: typeof type === "string" ? type : undefined, issues: parsed.issues },
      "dropped an invalid queue job",
    );
    return { kind: "dropped" };
  }
  const job = parsed.job;
  const jobLogger = logger.child({ jobId, ...jobLogFields(job), attempt });
  const started = Date.now();
  try {
    await handler(job, { signal, logger: jobLogger, jobId, attempt, release });
    jobLogger.debug({ durationMs: Date.now() - started }, "queue job done");
    return { kind: "completed" };
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    if (!signal.aborted) {
      const willRetry = attempt < JOB_ATTEMPTS[job.type];
      jobLogger.error({ err: error, willRetry, durationMs: Date.now() - started }, "queue job failed");
    }
    return { kind: "failed", error, aborted: signal.aborted, type: job.type };
  }
}
