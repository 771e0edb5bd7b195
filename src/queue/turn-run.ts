import { type MessageImage, withoutImageData } from "../agent/context/messages.ts";
import { continueRun } from "../agent/run/continue-run.ts";
import { type DurableDeps, runTurn } from "../agent/run/loop.ts";
import type { TurnResult } from "../agent/run/runtime-types.ts";
import type { RunSnapshot } from "../agent/run/snapshot.ts";
import type { TraceEvent } from "../agent/run/trace.ts";
import { errorMessage } from "../core/errors.ts";
import type { ThreadFile } from "../core/run-identity.ts";
import { MAX_FILES_PER_MESSAGE } from "../files/intake/file-refs.ts";
import type { RunRecord } from "../store/run-store.ts";
import type { LoadedSession } from "../store/session-store.ts";
import type { TakeRecord } from "./checkpoint-with-record.ts";
import { deliverOutcome } from "./deliver-outcome.ts";
import { openRunRecorder, withRunRecorder } from "./open-recorder.ts";
import { runCheckpoint } from "./recover-run.ts";
import { runDeps, settleDeadWorkerCalls, trackActions } from "./run-deps.ts";
import { replyTarget, type Turn, type TurnReads } from "./turn.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/** A turn whose run this worker is running: the loop's dependencies, wired to the turn's record and display. */
export interface TurnRun {
  deps: DurableDeps;
  /** The run's budget settles: awaited as the turn lands (beside the history save), not by the loop. */
  budgetsSettled: (() => Promise<void>) | undefined;
  /** The last checkpoint that landed: a finished run's state in `runs` is made from it. */
  kept(): RunSnapshot | undefined;
  /** The requester's time zone (a new run only: a continued one has it in its snapshot). */
  timezone: string | undefined;
}

/**
 * Gets the run ready: the requester's access, the turn's working message (or status line) showing
 * its progress, checkpoints into `runs`, the run record opened, and every call request noted (once one
 * was requested, a failure may no longer say nothing was done). From here a failure ends the run.
 */
export async function beginRun(
  s: WorkerDeps,
  turn: Turn,
  o: { reads: Pick<TurnReads, "access">; earlier: RunRecord | undefined; signal: AbortSignal },
): Promise<TurnRun> {
  const { job, run } = turn;
  const { earlier } = o;
  const [access, timezone] = await Promise.all([
    o.reads.access,
    earlier ? undefined : s.output.requesterTimezone(job.userId),
  ]);
  const keep = runCheckpoint(s.storage, job.eventId);
  let kept: RunSnapshot | undefined;
  if (earlier && earlier.snapshot.step > 0) run.mayHaveActed = true;
  const { settled: budgetsSettled, ...base } = runDeps(s, access, o.signal, job.channelId, job.teamId);
  run.recorder = await openRunRecorder(s, {
    runId: run.id,
    logger: run.log,
    ...(earlier ? { reopen: true } : { requestText: job.text }),
  });
  const deps = withRunRecorder(
    {
      ...base,
      onToolEvent: trackActions(base.onToolEvent, () => {
        run.mayHaveActed = true;
      }),
      checkpoint: async (snapshot: RunSnapshot, takeRecord?: TakeRecord) => {
        await keep(snapshot, takeRecord);
        kept = snapshot;
      },
      onTraceEvent: (e: TraceEvent) => turn.progress.show(e),
    },
    run.recorder,
  );
  run.running = true;
  return { deps, budgetsSettled, kept: () => kept, timezone };
}

/** A new run: the thread's history, the message (with what it needs quoted before it, and its files), the loop. */
export async function runNewTurn(
  s: Pick<WorkerDeps, "output" | "readFiles">,
  turn: Turn,
  running: TurnRun,
  history: Promise<LoadedSession>,
  signal: AbortSignal,
): Promise<TurnResult> {
  const { meta, run } = turn;
  const loaded = await history;
  if (loaded.unreadable)
    run.log.warn(
      { event: "note", note: "stored history of this thread is unreadable: starting fresh" },
      "note",
    );
  else if (!loaded.found)
    run.log.info({ event: "note", note: "no stored history for this thread: starting fresh" }, "note");
  const message = await userMessage(s, turn, loaded, signal);
  return runTurn(
    {
      run: {
        ...whereAndWho(turn),
        ...(running.timezone ? { timezone: running.timezone } : {}),
        ...(meta.assistantThread ? { assistantThread: true } : {}),
        ...(meta.viewing ? { viewing: meta.viewing } : {}),
        ...(message.files.length > 0 ? { files: message.files } : {}),
      },
      history: loaded.messages,
      userMessage: message.text,
      ...(message.images.length > 0 ? { userImages: message.images } : {}),
    },
    running.deps,
  );
}

/**
 * The message as the model gets it: a first turn inside an existing thread quotes the thread's
 * earlier messages, context Slack gave (already fenced as untrusted data) goes first, and the files
 * shared with it (and earlier in the thread, on a first turn there) follow it, read and fenced.
 * Files not read are told to the person in one notice.
 */
async function userMessage(
  s: Pick<WorkerDeps, "output" | "readFiles">,
  turn: Turn,
  loaded: LoadedSession,
  signal: AbortSignal,
): Promise<{ text: string; images: MessageImage[]; files: ThreadFile[] }> {
  const { job, meta, run } = turn;
  const log = run.log;
  let text = job.text;
  let refs = meta.files ?? [];
  if (!loaded.found && meta.inThread) {
    const context = await s.output
      .threadContext({
        channel: job.channelId,
        threadTs: job.threadTs,
        currentTs: job.messageTs,
        logger: log,
      })
      .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "thread context unavailable"));
    if (context?.quoted) text = `${context.quoted}\n\n${job.text}`;
    if (context?.files.length)
      refs = [...context.files.filter((f) => !refs.some((r) => r.id === f.id)), ...refs];
  }
  if (meta.untrustedContext) text = `${meta.untrustedContext}\n\n${text}`;
  if (refs.length === 0) return { text, images: [], files: [] };
  if (!s.readFiles) {
    log.warn({ files: refs.length }, "files shared with the turn, but this process reads none");
    return {
      text: `${text}\n\n[${refs.length} file(s) attached: files cannot be read here]`,
      images: [],
      files: [],
    };
  }
  const read = await s.readFiles({
    refs: refs.slice(-MAX_FILES_PER_MESSAGE),
    run: whereAndWho(turn),
    logger: log,
    signal,
  });
  if (read.notices.length > 0)
    await s.output
      .postNotice(read.notices.join("\n"), replyTarget(turn))
      .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "file notice not posted"));
  return {
    text: read.text ? `${text}\n\n${read.text}` : text,
    images: read.images,
    files: read.files,
  };
}

/** Who runs the turn's run, and where: its id, the thread's session, requester, team, channel and thread. */
function whereAndWho({ job, run }: Turn) {
  return {
    runId: run.id,
    sessionKey: job.sessionKey,
    userId: job.userId,
    teamId: job.teamId,
    channelId: job.channelId,
    threadTs: job.threadTs,
  };
}

/** A run whose worker died: its open calls settled from the audit log, then on from its checkpoint. */
export async function continueTurn(
  s: Pick<WorkerDeps, "storage" | "output">,
  turn: Turn,
  running: TurnRun,
  earlier: RunRecord,
): Promise<TurnResult> {
  const { log } = turn.run;
  log.warn({ step: earlier.snapshot.step }, "continuing a turn whose worker died, from its checkpoint");
  const settled = await settleDeadWorkerCalls(s, earlier.snapshot, log);
  return continueRun(earlier.snapshot, settled, running.deps);
}

/**
 * Stores the turn: the history, the run record's last write, the budget settles and the run's end
 * (with its final state) land together, none waiting for another, all before the answer is shown.
 * Finished before it is shown: a crash in between shows the stored answer, never re-runs. A paused
 * run is stored as the outcome is delivered, with its approvals.
 */
export async function landTurn(
  s: Pick<WorkerDeps, "storage">,
  turn: Turn,
  running: TurnRun,
  result: TurnResult,
): Promise<void> {
  const { job, run } = turn;
  await turn.progress.close();
  await allLanded([
    s.storage.sessions.save(job.sessionKey, withoutImageData(result.messages)),
    run.recorder?.settled(),
    running.budgetsSettled?.(),
    result.status === "paused"
      ? undefined
      : s.storage.runs.finish(run.id, result.status, finalSnapshot(running.kept(), result)),
  ]);
  if (result.status !== "paused") run.running = false;
}

/** Shows the outcome (a pause is stored here, with its approvals), then marks the event done. */
export async function deliverTurn(s: WorkerDeps, turn: Turn, result: TurnResult): Promise<void> {
  const { job, run } = turn;
  await deliverOutcome(s, result, replyTarget(turn));
  run.running = false;
  run.log.info(
    { status: result.status, steps: result.steps, modelCalls: result.modelCalls },
    "turn finished",
  );
  await s.storage.events.finish(job.eventId, "done");
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
