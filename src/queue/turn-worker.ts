import { tracing } from "../core/tracing.ts";
import type { TurnJob } from "./jobs.ts";
import { inThreadOrder } from "./thread-order.ts";
import { failTurn, openTurn, settleEnded, startReads, startTurn } from "./turn.ts";
import type { JobContext } from "./turn-queue.ts";
import { beginRun, continueTurn, deliverTurn, landTurn, runNewTurn } from "./turn-run.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/**
 * Runs one turn job: one turn per thread at a time (the session lock), in the order of the thread's
 * messages (`inThreadOrder`), history from the session store, the user's permitted tools and
 * policy, progress in the working message, then the answer or the approval cards. Whatever goes
 * wrong, the user sees one sentence with a run id.
 */
export async function handleTurnJob(
  s: WorkerDeps,
  job: TurnJob,
  ctx: Pick<JobContext, "signal" | "logger"> & Partial<Pick<JobContext, "release">>,
): Promise<void> {
  const began = performance.now();
  const turn = openTurn(s, job, ctx.logger);
  const span = tracing().startSpan("invoke_agent hermes", {
    parent: job.meta?.traceparent,
    attributes: {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "hermes",
      "gen_ai.conversation.id": job.sessionKey,
      "hermes.run.id": turn.run.id,
      "slack.event.id": job.eventId,
    },
  });
  try {
    await tracing().withSpan(span, () => runJob(s, job, ctx, turn, began));
  } finally {
    // The run id a continued turn goes on with is known only once the turn started.
    span.setAttributes({ "hermes.run.id": turn.run.id });
    span.end();
  }
}

/** The turn itself: inside the run's span (what it calls, the model and the tools, are its children). */
async function runJob(
  s: WorkerDeps,
  job: TurnJob,
  ctx: Pick<JobContext, "signal" | "logger"> & Partial<Pick<JobContext, "release">>,
  turn: ReturnType<typeof openTurn>,
  began: number,
): Promise<void> {
  try {
    const reads = () => startReads(s, job);
    await inThreadOrder(s, job, { ...ctx, reads }, async (lockSignal, started) => {
      const start = await startTurn(turn, started);
      if (start.kind === "duplicate") return turn.progress.discard?.();
      if (start.kind === "ended") return settleEnded(s, turn, start.earlier);
      const earlier = start.kind === "continue" ? start.earlier : undefined;
      // The user's Stop (agent sessions) aborts the run as a cancel does.
      const stop = s.stops?.watch(job.sessionKey, runBegan(job.messageTs));
      const signal = AbortSignal.any([ctx.signal, lockSignal, ...(stop ? [stop.signal] : [])]);
      const running = await beginRun(s, turn, { reads: started, earlier, signal });
      const result = await (earlier
        ? continueTurn(s, turn, running, earlier)
        : runNewTurn(s, turn, running, started.history, signal)
      ).finally(() => stop?.dispose());
      await landTurn(s, turn, running, result);
      // Stored: what is left only waits on Slack (in a busy channel, about a message a second), so
      // the next job starts now instead of behind this delivery.
      ctx.release?.();
      await deliverTurn(s, turn, result);
      s.metrics?.turnFinished(result.status, (performance.now() - began) / 1000);
    });
  } catch (err) {
    await failTurn(s, turn, err);
    s.metrics?.turnFinished("failed", (performance.now() - began) / 1000);
  } finally {
    await turn.status?.clear();
  }
}

/** When a turn's run began, for the Stop: its message's time (a Slack ts), never later than now. */
function runBegan(messageTs: string): number {
  const ms = Number(messageTs) * 1000;
  return Number.isFinite(ms) ? Math.min(ms, Date.now()) : Date.now();
}
