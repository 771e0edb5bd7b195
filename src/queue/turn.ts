import { randomUUID } from "node:crypto";
import type { RunRecorder } from "../agent/record/recorder.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Storage } from "../storage.ts";
import type { EventDedupe } from "../store/event-dedupe.ts";
import type { RunRecord, RunStore } from "../store/run-store.ts";
import type { LoadedSession } from "../store/session-store.ts";
import { failureSentence } from "./failure-sentence.ts";
import type { TurnJob, TurnJobMeta } from "./jobs.ts";
import { type RunAccess, requesterAccess } from "./run-deps.ts";
import { settleFinishedRun } from "./settle-finished-run.ts";
import type { ProgressDisplay, ReplyTarget, StatusDisplay, TurnOutput } from "./turn-output.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/**
 * One turn job as a worker holds it: opened (its run id, where the answer goes, the status line),
 * started under the thread's lock, then run or continued, landed and delivered (`turn-run.ts`), or
 * failed. The job and its reply target never change; `run` is what a failure must know of the run
 * so far, kept current by the steps.
 */
export interface Turn {
  readonly job: TurnJob;
  readonly meta: TurnJobMeta;
  readonly target: ReplyTarget;
  /** From an assistant thread: its status line, cleared however the turn ends. */
  readonly status: StatusDisplay | undefined;
  /**
   * What shows the turn's progress: the status line, or a working message posted as the worker takes
   * the job (best effort: never waited for), so a turn waiting for its thread's earlier one shows too.
   */
  readonly progress: ProgressDisplay;
  /** The job's logger, before a run id is bound to it. */
  readonly jobLog: Logger;
  readonly run: RunSoFar;
}

export interface RunSoFar {
  /** A fresh id, or the id of the event's earlier run when this turn goes on with it. */
  id: string;
  log: Logger;
  /** Whether a call of this run may have taken effect: then a failure must not say "nothing was done". */
  mayHaveActed: boolean;
  /** Whether this worker is running the run: a failure then ends it, so no later start continues it. */
  running: boolean;
  recorder: RunRecorder | undefined;
}

/** The reads a turn starts with (see `startReads`). */
export interface TurnReads {
  access: Promise<RunAccess>;
  /** Whether the event's turn already finished, and the run it started, if any. */
  checks: Promise<[finished: boolean, earlier: RunRecord | undefined]>;
  history: Promise<LoadedSession>;
}

/** What the turn does, by what its event's reads found under the thread's lock. */
export type TurnStart =
  /** A queue handed the job out twice: the first copy finished it. */
  | { kind: "duplicate" }
  /** Its run already ended, but the event was not marked done: shown again, not run again. */
  | { kind: "ended"; earlier: RunRecord }
  | { kind: "new" }
  /** Its worker died mid-run: this worker continues the run from its last checkpoint. */
  | { kind: "continue"; earlier: RunRecord };

export function openTurn(
  s: { output: Pick<TurnOutput, "assistantStatus" | "progress"> },
  job: TurnJob,
  jobLog: Logger,
): Turn {
  const meta = job.meta ?? {};
  const id = randomUUID();
  const log = runLog(jobLog, job, id);
  const status = meta.assistantThread
    ? s.output.assistantStatus?.({
        channel: job.channelId,
        threadTs: job.threadTs,
        logger: log,
        requester: { userId: job.userId, teamId: job.teamId },
      })
    : undefined;
  const progress =
    status ??
    s.output.progress({
      channel: job.channelId,
      threadTs: job.threadTs,
      ts: meta.placeholderTs,
      logger: log,
      requester: { userId: job.userId, teamId: job.teamId },
    });
  return {
    job,
    meta,
    target: { channel: job.channelId, threadTs: job.threadTs, placeholderTs: meta.placeholderTs },
    status,
    progress,
    jobLog,
    run: { id, log, mayHaveActed: false, running: false, recorder: undefined },
  };
}

/**
 * The reads a turn starts with, sent together (and with the thread-order check), not one after
 * another; what the start makes unnecessary (a duplicate job, a finished run) is dropped unread.
 * The thread's history too: a new turn (nearly every job) reads it next, and a dropped one costs a
 * Redis read. Their rejections are handled here, as dropped reads must be.
 */
export function startReads(
  s: Pick<WorkerDeps, "config" | "logger" | "storage" | "runtime">,
  job: TurnJob,
): TurnReads {
  const { runs, sessions } = s.storage;
  const access = requesterAccess(s, job.userId, job.channelId, job.teamId);
  // The event's status and its run in one statement.
  const checks = runs
    .forEventTurn(job.eventId)
    .then(({ finished, run }): [boolean, RunRecord | undefined] => [finished, run]);
  const history = sessions.load(job.sessionKey);
  for (const p of [access, checks, history]) p.catch(() => undefined);
  return { access, checks, history };
}

/**
 * What the turn does, decided under the thread's lock from its event's checks. A job handed out twice
 * is seen here (it is marked done before the lock is released); a run found for the event is this
 * turn's own, left by a worker that died, and the turn takes its id.
 */
export async function startTurn(turn: Turn, reads: Pick<TurnReads, "checks">): Promise<TurnStart> {
  const [finished, earlier] = await reads.checks;
  if (finished) {
    turn.run.log.info("turn already finished for this event; not run again");
    return { kind: "duplicate" };
  }
  if (!earlier) return { kind: "new" };
  turn.run.id = earlier.runId;
  turn.run.log = runLog(turn.jobLog, turn.job, earlier.runId);
  return earlier.status === "running" ? { kind: "continue", earlier } : { kind: "ended", earlier };
}

/** A run that already ended: its answer shown again (it may not have been), its event marked done. */
export async function settleEnded(
  s: Pick<WorkerDeps, "output"> & { storage: Pick<Storage, "events"> },
  turn: Turn,
  earlier: RunRecord,
): Promise<void> {
  await turn.progress.close();
  await settleFinishedRun(s, earlier, replyTarget(turn), turn.run.log);
  await s.storage.events.finish(turn.job.eventId, "done");
}

/**
 * Whatever went wrong: the event marked failed, the run ended when this worker was running it (so a
 * later start does not continue it either), and the user told in one sentence naming the run.
 */
export async function failTurn(
  s: {
    storage: { events: Pick<EventDedupe, "finish">; runs: Pick<RunStore, "finish"> };
    output: Pick<TurnOutput, "postAnswer">;
  },
  turn: Turn,
  err: unknown,
): Promise<void> {
  const { run, job } = turn;
  run.log.error(
    { err: errorMessage(err), stack: err instanceof Error ? err.stack : undefined },
    "turn failed",
  );
  await s.storage.events.finish(job.eventId, "failed").catch(() => undefined);
  if (run.running) {
    run.recorder?.fail("error", errorMessage(err));
    await run.recorder?.settled();
    await s.storage.runs.finish(run.id, "failed").catch(() => undefined);
  }
  await turn.progress.close().catch(() => undefined);
  await s.output
    .postAnswer(failureSentence(run.id, err, { mayHaveActed: run.mayHaveActed }), replyTarget(turn), {
      runId: run.id,
    })
    .catch((e: unknown) =>
      run.log.error({ err: errorMessage(e) }, "could not tell the user about the failure"),
    );
}

/**
 * Where the turn's answer goes: its thread, replacing the working message the run posted when one
 * went out (read after the display is closed).
 */
export function replyTarget(turn: Turn): ReplyTarget {
  const working = turn.progress.workingTs;
  return working ? { ...turn.target, placeholderTs: working() } : turn.target;
}

function runLog(jobLog: Logger, job: TurnJob, runId: string): Logger {
  return jobLog.child({ runId, sessionKey: job.sessionKey, eventId: job.eventId });
}
