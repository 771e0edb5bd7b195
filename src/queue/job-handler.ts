import type { Logger } from "../core/logger.ts";
import type { QueueJob } from "./jobs.ts";
import { handleResumeJob } from "./resume-worker.ts";
import { handleTurnJob } from "./turn-worker.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/** The worker's one entry point: a job from the queue, by type. */
export async function handleJob(
  s: WorkerDeps,
  job: QueueJob,
  ctx: { signal: AbortSignal; logger: Logger },
): Promise<void> {
  switch (job.type) {
    case "turn":
      return handleTurnJob(s, job, ctx);
    case "resume":
      return handleResumeJob(s, job, ctx);
  }
}
