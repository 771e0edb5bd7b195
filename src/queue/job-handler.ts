import type { QueueJob } from "./jobs.ts";
import { handleResumeJob } from "./resume-worker.ts";
import type { JobContext } from "./turn-queue.ts";
import { handleTurnJob } from "./turn-worker.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/** The worker's one entry point: a job from the queue, by type. */
export async function handleJob(
  s: WorkerDeps,
  job: QueueJob,
  ctx: Pick<JobContext, "signal" | "logger"> & Partial<Pick<JobContext, "release">>,
): Promise<void> {
  switch (job.type) {
    case "turn":
      return handleTurnJob(s, job, ctx);
    case "resume":
      return handleResumeJob(s, job, ctx);
  }
}
