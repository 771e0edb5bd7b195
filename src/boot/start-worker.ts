import type { DurableTurnQueue } from "../queue/durable-turn-queue.ts";
import { handleJob } from "../queue/job-handler.ts";
import { recoverUnfinishedWork } from "../queue/recover-run.ts";
import type { WorkerDeps } from "../queue/worker-deps.ts";
import type { Scheduler } from "../schedules/scheduler.ts";
import { preloadMrkdwn } from "../slack/mrkdwn.ts";
import { startBackgroundWork } from "./background-work.ts";
import type { HermesParts } from "./hermes-parts.ts";

/** With Redis, a turn accepted this long ago whose job was never queued is taken as lost. */
const SHARED_RECOVERY_GRACE_MS = 5_000;

/** What a worker runs a job with, out of the parts. */
export function workerDepsOf(parts: HermesParts): WorkerDeps {
  const { config, logger, storage, runtime, output, readFiles, stops, metrics } = parts;
  const workspaces = parts.slack.installs?.workspaces;
  return {
    // OAuth installs: each job runs as its team's workspace.
    ...(workspaces ? { teams: { run: (teamId, work) => workspaces.run(teamId, work) } } : {}),
    config,
    logger,
    storage,
    runtime,
    output,
    ...(readFiles ? { readFiles } : {}),
    ...(stops ? { stops } : {}),
    ...(metrics ? { metrics } : {}),
  };
}

/**
 * The worker side: runs queued jobs (`HERMES_WORKER_CONCURRENCY` at once), picks up turns left
 * unfinished, and starts the background work. Embedded: one process, so everything unfinished is
 * from before it. With Redis, other processes may be accepting turns right now: only turns accepted
 * a while ago without a queued job are lost ones (the job id is the receiver's, so a queued or
 * running one is not queued twice), at start and on the background sweep.
 */
export async function startWorker(parts: HermesParts, durableQueue: DurableTurnQueue, scheduler: Scheduler) {
  const { config, logger } = parts;
  const worker = workerDepsOf(parts);
  preloadMrkdwn();
  await durableQueue.process((job, ctx) => handleJob(worker, job, ctx), {
    concurrency: config.env.HERMES_WORKER_CONCURRENCY,
  });
  const recoverTurns = config.env.REDIS_URL
    ? () => durableQueue.recoverPending(new Date(Date.now() - SHARED_RECOVERY_GRACE_MS))
    : undefined;
  const recovered = recoverTurns
    ? recoverTurns()
    : recoverUnfinishedWork({ runs: parts.storage.runs, queue: parts.queue, logger }, durableQueue);
  await recovered.catch((err: unknown) =>
    logger.error({ err: String(err) }, "could not pick up unfinished turns"),
  );
  return startBackgroundWork({ ...parts, ...(worker.teams ? { teams: worker.teams } : {}) }, scheduler, {
    recoverTurns,
  });
}
