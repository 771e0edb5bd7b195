import { inSpan } from "../core/tracing.ts";
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
  const { teams } = s;
  if (!teams) return handleJobOfTeam(s, job, ctx);
  // A turn names its team; a resume is its run's thread's (`team:channel:thread_ts`).
  const teamId =
    job.type === "turn" ? job.teamId : (await s.storage.runs.get(job.runId))?.sessionKey.split(":")[0];
  return teams.run(teamId || undefined, () => handleJobOfTeam(s, job, ctx));
}

function handleJobOfTeam(
  s: WorkerDeps,
  job: QueueJob,
  ctx: Pick<JobContext, "signal" | "logger"> & Partial<Pick<JobContext, "release">>,
): Promise<void> {
  switch (job.type) {
    case "turn":
      return handleTurnJob(s, job, ctx);
    case "resume":
      // The resumed part of a run is its own `invoke_agent` span (the first part's ended at the pause).
      return inSpan(
        "invoke_agent hermes",
        {
          attributes: {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": "hermes",
            "hermes.run.id": job.runId,
            "hermes.resume.reason": job.reason,
          },
        },
        () => handleResumeJob(s, job, ctx),
      );
  }
}
