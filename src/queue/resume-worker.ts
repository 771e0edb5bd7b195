import { withoutImageData } from "../agent/context/messages.ts";
import type { RunRecorder } from "../agent/record/recorder.ts";
import { continueRun } from "../agent/run/continue-run.ts";
import { resumeRun } from "../agent/run/loop.ts";
import type { TurnResult } from "../agent/run/runtime-types.ts";
import type { RunSnapshot } from "../agent/run/snapshot.ts";
import type { TraceEvent } from "../agent/run/trace.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { RunIdentity } from "../core/run-identity.ts";
import type { RunDecisions } from "../policy/approval-store.ts";
import type { Storage } from "../storage.ts";
import { unsealForResume } from "./call-bindings.ts";
import { deliverOutcome } from "./deliver-outcome.ts";
import { failureSentence } from "./failure-sentence.ts";
import type { ResumeJob } from "./jobs.ts";
import { openRunRecorder, withRunRecorder } from "./open-recorder.ts";
import { runCheckpoint } from "./recover-run.ts";
import { requesterAccess, runDeps, settleDeadWorkerCalls, trackActions } from "./run-deps.ts";
import type { ProgressDisplay, ReplyTarget } from "./turn-output.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/**
 * Continues a paused run once every approval it waits for is decided (or expired): exactly once, even
 * when two cards of the run are clicked at the same moment (the run store's paused → running claim).
 * Policy is checked again with the requester's current level; cards get the outcome of their call.
 */
export async function handleResumeJob(
  s: WorkerDeps,
  job: ResumeJob,
  ctx: { signal: AbortSignal; logger: Logger },
) {
  const began = performance.now();
  const { runs, sessions, approvals } = s.storage;
  const record = await runs.get(job.runId);
  if (record?.status !== "paused" && record?.status !== "running") return;
  const log = ctx.logger.child({ runId: job.runId, sessionKey: record.sessionKey });
  const run = record.snapshot.run;
  const target = { channel: run.channelId ?? "", threadTs: run.threadTs ?? "" };
  await sessions.withLock(record.sessionKey, async (lockSignal) => {
    // Under the thread's lock nobody else runs this thread: a run still `running` here is one whose
    // worker died during a resume; it continues from its checkpoint instead of being claimed.
    const current = await runs.get(job.runId);
    const recovering = current?.status === "running";
    let decisions: RunDecisions["decisions"] = {};
    let snapshot: RunSnapshot | undefined;
    if (recovering) {
      snapshot = current.snapshot;
    } else {
      const decided = await approvals.decisionsForRun(job.runId);
      if (decided.pending.length > 0) {
        log.info(
          { pending: decided.pending.map((a) => a.id) },
          "resume waits for the other approvals of this run",
        );
        return;
      }
      const claimed = await runs.claimForResume(job.runId);
      // Stored calls are bound by keyed hashes: each approved call runs only if its stored arguments
      // still match both its snapshot's binding and its approval's.
      if (claimed) ({ snapshot, decisions } = unsealForResume(claimed, decided.decisions, approvals.binding));
    }
    if (!snapshot) return;
    // Shown as the turn was: an assistant thread's status line, else a "Continuing…" message that
    // may stream the answer. The run identity kept in the snapshot says which.
    const status = snapshot.run.assistantThread
      ? s.output.assistantStatus?.({
          ...target,
          logger: log,
          requester: { userId: run.userId, ...(run.teamId ? { teamId: run.teamId } : {}) },
        })
      : undefined;
    const progress: ProgressDisplay = status ?? continuing(s, target, snapshot.run, log);
    // The thread, with the working message the run posted once its display is closed.
    const reply = async (): Promise<ReplyTarget> => {
      await progress.close().catch(() => undefined);
      return { ...target, placeholderTs: progress.workingTs?.() };
    };
    let result: TurnResult | undefined;
    // Approved calls run in a resume: a failure after one started must not say nothing was done.
    let mayHaveActed = recovering;
    let recorder: RunRecorder | undefined;
    let stopWatch: { dispose(): void } | undefined;
    try {
      const access = await requesterAccess(s, run.userId, run.channelId, run.teamId ?? undefined);
      // The same requester and channel as the turn that paused: a resumed run is paid from the same budgets.
      const stop = s.stops?.watch(record.sessionKey, record.createdAt.getTime());
      stopWatch = stop;
      const signals = [ctx.signal, lockSignal, ...(stop ? [stop.signal] : [])];
      const base = runDeps(s, access, AbortSignal.any(signals), run.channelId, run.teamId);
      recorder = await openRunRecorder(s, { runId: job.runId, logger: log, reopen: true });
      const deps = withRunRecorder(
        {
          ...base,
          onToolEvent: trackActions(base.onToolEvent, () => {
            mayHaveActed = true;
          }),
          checkpoint: runCheckpoint(s.storage),
          onTraceEvent: (e: TraceEvent) => progress.show(e),
        },
        recorder,
      );
      if (Object.values(decisions).some((d) => d.status === "approved")) mayHaveActed = true;
      if (recovering) log.warn("continuing a resumed run whose worker died, from its checkpoint");
      result = recovering
        ? await continueRun(snapshot, await settleDeadWorkerCalls(s, snapshot, log), deps)
        : await resumeRun(snapshot, decisions, deps);
      const to = await reply();
      await sessions.save(record.sessionKey, withoutImageData(result.messages));
      await recorder?.settled();
      if (result.status !== "paused") await runs.finish(job.runId, result.status);
      await reportOutcomes(s, job.runId, result);
      await deliverOutcome(s, result, to);
      s.metrics?.turnFinished(result.status, (performance.now() - began) / 1000);
    } catch (err) {
      log.error({ err: errorMessage(err) }, "resume failed");
      s.metrics?.turnFinished("failed", (performance.now() - began) / 1000);
      if (!result) {
        recorder?.fail("error", errorMessage(err));
        await recorder?.settled();
        await runs.finish(job.runId, "failed").catch(() => undefined);
      }
      await s.output
        .postAnswer(failureSentence(job.runId, err, { mayHaveActed }), await reply(), { runId: job.runId })
        .catch(() => undefined);
    } finally {
      stopWatch?.dispose();
      await status?.clear();
    }
  });
}

/**
 * The "Continuing…" message a resume's answer replaces, showing the run's progress (posted best
 * effort, as a first turn's working message is); with the requester, the answer streams as a first
 * turn's does (same fallback rules).
 */
function continuing(
  s: Pick<WorkerDeps, "output">,
  target: { channel: string; threadTs: string },
  run: RunIdentity,
  logger: Logger,
): ProgressDisplay {
  return s.output.progress({
    ...target,
    text: ":hourglass_flowing_sand: Continuing…",
    logger,
    requester: { userId: run.userId, ...(run.teamId ? { teamId: run.teamId } : {}) },
  });
}

/** Each decided card of the run says what became of its call: the tool result or why it did not run. */
async function reportOutcomes(
  s: Pick<WorkerDeps, "output"> & { storage: Pick<Storage, "approvals"> },
  runId: string,
  result: TurnResult,
) {
  for (const a of await s.storage.approvals.listForRun(runId)) {
    if (a.status === "pending") continue;
    const msg = result.messages.find((m) => m.role === "tool" && m.toolCallId === a.toolCallId);
    const text = msg && msg.role === "tool" ? msg.content : undefined;
    const outcome = a.status === "approved" ? `Result: ${(text ?? "no result").slice(0, 300)}` : undefined;
    await s.output.updateCard(a, outcome);
  }
}
