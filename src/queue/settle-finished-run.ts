import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { RunRecord } from "../store/run-store.ts";
import type { ReplyTarget } from "./turn-output.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/**
 * The event's run already ended (its worker died after that, before the event was marked done): a
 * finished run's answer is shown again (it may not have been), a paused one waits for its cards.
 */
export async function settleFinishedRun(
  s: Pick<WorkerDeps, "output">,
  run: RunRecord,
  target: ReplyTarget,
  log: Logger,
): Promise<void> {
  log.info({ status: run.status }, "this event's run already ended; not run again");
  if (run.status === "paused") return;
  const last = run.snapshot.messages.at(-1);
  // As when it was first shown: it names its run, and only a completed run's answer carries 👍/👎.
  const rated =
    run.status === "completed" ? { runId: run.runId, feedbackRunId: run.runId } : { runId: run.runId };
  if (last?.role === "assistant" && last.content)
    await s.output
      .postAnswer(last.content, target, rated)
      .catch((e: unknown) => log.warn({ err: errorMessage(e) }, "could not show the stored answer"));
}
