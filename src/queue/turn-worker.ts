import { randomUUID } from "node:crypto";
import { runtimeDepsFor } from "../agent/agent-runtime.ts";
import { continueRun } from "../agent/continue-run.ts";
import { runTurn } from "../agent/loop.ts";
import type { ToolEventSink } from "../agent/policy-hook.ts";
import type { RunRecorder } from "../agent/run-recorder.ts";
import type { RunSnapshot } from "../agent/run-snapshot.ts";
import type { TurnResult } from "../agent/runtime-types.ts";
import type { TraceEvent } from "../agent/trace.ts";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { resolveAccess } from "../policy/resolve-access.ts";
import type { RunRecord } from "../store/run-store.ts";
import type { RunIdentity } from "../tools/define-tool.ts";
import { deliverOutcome } from "./deliver-outcome.ts";
import type { TurnJob } from "./jobs.ts";
import { openRunRecorder, withRunRecorder } from "./record-run.ts";
import { runCheckpoint, settleOpenCalls } from "./recover-run.ts";
import { inThreadOrder } from "./thread-order.ts";
import type { ReplyTarget } from "./turn-output.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/** What the event listener adds to a turn job (inside `meta`). */
export interface TurnJobMeta {
  placeholderTs?: string;
  inThread?: boolean;
  /** From an assistant thread: its status line shows progress instead of a working message. */
  assistantThread?: boolean;
  /** Context Slack gave (e.g. the channel the user is viewing), already fenced as untrusted data. */
  untrustedContext?: string;
  /** The channel the user is viewing beside an assistant thread, for tools (untrusted: a hint only). */
  viewing?: RunIdentity["viewing"];
}

/**
 * Runs one turn job: one turn per thread at a time (the session lock), in the order of the thread's
 * messages (`inThreadOrder`), history from the session store, the user's permitted tools and
 * policy, progress in the working message, then the answer or the approval cards. Whatever goes wrong, the user sees one sentence with a run id.
 */
export async function handleTurnJob(
  s: WorkerDeps,
  job: TurnJob,
  ctx: { signal: AbortSignal; logger: Logger },
) {
  const meta = (job.meta ?? {}) as TurnJobMeta;
  let runId: string = randomUUID();
  // Whether a call of this run may have taken effect: then a failure must not say "nothing was done".
  let mayHaveActed = false;
  // Whether this worker is running the run (a failure then ends it, so no later start continues it).
  let running = false;
  let recorder: RunRecorder | undefined;
  let log = ctx.logger.child({ runId, sessionKey: job.sessionKey, eventId: job.eventId });
  const target: ReplyTarget = {
    channel: job.channelId,
    threadTs: job.threadTs,
    placeholderTs: meta.placeholderTs,
  };
  const status = meta.assistantThread
    ? s.output.assistantStatus?.({
        channel: job.channelId,
        threadTs: job.threadTs,
        logger: log,
        requester: { userId: job.userId, teamId: job.teamId },
      })
    : undefined;
  try {
    // The reads a turn starts with go out together (and with the thread-order check), not one after
    // another; what the checks below make unnecessary (a duplicate job, a finished run) is dropped unread.
    // The thread's history too: a new turn (nearly every job) reads it next, and a dropped one costs
    // a Redis read.
    const reads = () => {
      const access = resolveAccess(s, job.userId);
      const checks = Promise.all([s.events.isFinished(job.eventId), s.runs.forEvent(job.eventId)]);
      const history = s.sessions.load(job.sessionKey);
      for (const p of [access, checks, history]) p.catch(() => undefined);
      return { access, checks, history };
    };
    await inThreadOrder(s, job, { ...ctx, reads }, async (lockSignal, started) => {
      const [finished, earlier] = await started.checks;
      // A queue may hand a job out twice (a worker that stalled after finishing): checked under the
      // thread's lock, and marked done before it is released, so the second copy sees it.
      if (finished) {
        log.info("turn already finished for this event; not run again");
        return;
      }
      // Picked up again after its worker died: under the thread's lock nobody else runs it, so a run
      // still `running` is that worker's, and it continues from its last checkpoint.
      if (earlier) {
        runId = earlier.runId;
        log = ctx.logger.child({ runId, sessionKey: job.sessionKey, eventId: job.eventId });
        if (earlier.status !== "running") {
          await settleFinishedRun(s, earlier, target, log);
          await s.events.finish(job.eventId, "done");
          return;
        }
      }
      const signal = AbortSignal.any([ctx.signal, lockSignal]);
      const [access, timezone] = await Promise.all([
        started.access,
        earlier ? undefined : s.output.requesterTimezone(job.userId),
      ]);
      const historyRead = earlier ? undefined : started.history;
      const progress = meta.placeholderTs
        ? s.output.progress({
            channel: job.channelId,
            ts: meta.placeholderTs,
            logger: log,
            thread: { threadTs: job.threadTs, userId: job.userId, teamId: job.teamId },
          })
        : status;
      const keep = runCheckpoint(s, job.eventId);
      let kept: RunSnapshot | undefined;
      if (earlier && earlier.snapshot.step > 0) mayHaveActed = true;
      // The run's budget settles are awaited below, beside the history save, not by the loop at its end.
      const { settled: budgetsSettled, ...base } = runtimeDepsFor(s, access, signal, job.channelId);
      recorder = await openRunRecorder(s, {
        runId,
        logger: log,
        ...(earlier ? { reopen: true } : { requestText: job.text }),
      });
      const deps = withRunRecorder(
        {
          ...base,
          onToolEvent: trackActions(base.onToolEvent, () => {
            mayHaveActed = true;
          }),
          checkpoint: async (snapshot: RunSnapshot) => {
            await keep(snapshot);
            kept = snapshot;
          },
          onTraceEvent: (e: TraceEvent) => progress?.show(e),
        },
        recorder,
      );
      let result: TurnResult;
      running = true;
      if (earlier) {
        log.warn({ step: earlier.snapshot.step }, "continuing a turn whose worker died, from its checkpoint");
        result = await continueRun(earlier.snapshot, await settleOpenCalls(s, earlier.snapshot, log), deps);
      } else {
        const loaded = await historyRead!;
        if (loaded.unreadable)
          log.warn(
            { event: "note", note: "stored history of this thread is unreadable: starting fresh" },
            "note",
          );
        else if (!loaded.found)
          log.info({ event: "note", note: "no stored history for this thread: starting fresh" }, "note");
        let userMessage = job.text;
        if (!loaded.found && meta.inThread) {
          const quoted = await s.output
            .threadContext({
              channel: job.channelId,
              threadTs: job.threadTs,
              currentTs: job.messageTs,
              logger: log,
            })
            .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "thread context unavailable"));
          if (quoted) userMessage = `${quoted}\n\n${job.text}`;
        }
        if (meta.untrustedContext) userMessage = `${meta.untrustedContext}\n\n${userMessage}`;
        result = await runTurn(
          {
            run: {
              runId,
              sessionKey: job.sessionKey,
              userId: job.userId,
              teamId: job.teamId,
              channelId: job.channelId,
              threadTs: job.threadTs,
              ...(timezone ? { timezone } : {}),
              ...(meta.assistantThread ? { assistantThread: true } : {}),
              ...(meta.viewing ? { viewing: meta.viewing } : {}),
            },
            history: loaded.messages,
            userMessage,
          },
          deps,
        );
      }
      await progress?.close();
      // The history, the run record's last write, the budget settles and the run's end (with its final
      // state) land together, none waiting for another; all before the answer is shown. Finished
      // before it is shown: a crash in between shows the stored answer, never re-runs.
      await allLanded([
        s.sessions.save(job.sessionKey, result.messages),
        recorder?.settled(),
        budgetsSettled?.(),
        result.status === "paused"
          ? undefined
          : s.runs.finish(runId, result.status, finalSnapshot(kept, result)),
      ]);
      if (result.status !== "paused") running = false;
      await deliverOutcome(s, result, target); // a pause is stored here, with its approvals
      running = false;
      log.info(
        { status: result.status, steps: result.steps, modelCalls: result.modelCalls },
        "turn finished",
      );
      await s.events.finish(job.eventId, "done");
    });
  } catch (err) {
    log.error({ err: errorMessage(err), stack: err instanceof Error ? err.stack : undefined }, "turn failed");
    await s.events.finish(job.eventId, "failed").catch(() => undefined);
    // The user is told it failed: it must not be continued by a later start either.
    if (running) {
      recorder?.fail("error", errorMessage(err));
      await recorder?.settled();
      await s.runs.finish(runId, "failed").catch(() => undefined);
    }
    await s.output
      .postAnswer(failureSentence(runId, err, { mayHaveActed }), target, { runId })
      .catch((e: unknown) =>
        log.error({ err: errorMessage(e) }, "could not tell the user about the failure"),
      );
  } finally {
    await status?.clear();
  }
}

/**
 * Waits for every write, then throws the first failure: a failure is handled (the run marked failed)
 * only once nothing of the turn's is still in flight to land after it.
 */
async function allLanded(writes: Array<Promise<unknown> | undefined>): Promise<void> {
  const landed = await Promise.allSettled(writes);
  for (const w of landed) if (w.status === "rejected") throw w.reason;
}

/** A finished run's state as kept in `runs` (what a re-delivered job shows instead of running again). */
function finalSnapshot(kept: RunSnapshot | undefined, result: TurnResult): RunSnapshot | undefined {
  if (!kept) return undefined;
  const { messages, steps: step, usage, modelCalls } = result;
  return { ...kept, messages, step, usage, modelCalls, pending: [] };
}

/**
 * The event's run already ended (its worker died after that, before the event was marked done): a
 * finished run's answer is shown again (it may not have been), a paused one waits for its cards.
 */
async function settleFinishedRun(
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

/**
 * The one sentence a user sees when something broke on our side. Once a call of the run was
 * requested it may have taken effect, so the sentence never claims that nothing was done.
 */
export function failureSentence(
  runId: string,
  err: unknown,
  options: { mayHaveActed?: boolean } = {},
): string {
  const code = (err as { code?: string }).code;
  const storage = code === "storage_unavailable";
  const why = options.mayHaveActed
    ? `${storage ? "my storage became unavailable" : "something went wrong on my side"} before I could finish this request. What I had already started may or may not have taken effect: check before trying again`
    : storage
      ? "my storage is unavailable right now, so nothing was done"
      : "something went wrong on my side and I could not finish this request";
  return `:warning: Sorry, ${why}. Reference: run \`${runId}\`.`;
}

/** Wraps the audit sink: `onRequested` once a call's request was recorded (it may run from then on). */
export function trackActions(sink: ToolEventSink | undefined, onRequested: () => void): ToolEventSink {
  return async (event) => {
    await sink?.(event);
    if (event.action === "tool.requested") onRequested();
  };
}
