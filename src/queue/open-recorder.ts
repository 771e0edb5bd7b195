import { createRunRecorder, type RunRecorder } from "../agent/record/recorder.ts";
import type { ToolEventSink } from "../agent/run/policy-hook.ts";
import type { RunSnapshot } from "../agent/run/snapshot.ts";
import type { TraceEvent } from "../agent/run/trace.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { RecordedCheckpoint } from "./checkpoint-with-record.ts";
import type { WorkerDeps } from "./worker-deps.ts";

/**
 * The recorder for a run a worker is about to run: a new run (its request text given), or a stored
 * one going on (`reopen`: a resume after approval, or a continuation after a crash), whose decided
 * approvals are closed in its record first. Undefined when the record cannot be opened: the run goes
 * on unrecorded (logged) rather than not at all.
 */
export async function openRunRecorder(
  s: Pick<WorkerDeps, "storage" | "config">,
  o: { runId: string; logger: Logger; requestText?: string; reopen?: boolean },
): Promise<RunRecorder | undefined> {
  const base = {
    port: s.storage.runRecords,
    runId: o.runId,
    prices: s.config.env.HERMES_MODEL_PRICES,
    logger: o.logger,
  };
  if (!o.reopen)
    return createRunRecorder({
      ...base,
      ...(o.requestText !== undefined ? { requestText: o.requestText } : {}),
    });
  try {
    const opened = await s.storage.runRecords.reopen(o.runId);
    return createRunRecorder({ ...base, nextSeq: opened.nextSeq, approvals: opened.approvals });
  } catch (err) {
    o.logger.warn(
      { runId: o.runId, err: errorMessage(err) },
      "run record not reopened; this part goes unrecorded",
    );
    return undefined;
  }
}

interface RecordedHooks {
  onTraceEvent?: ((e: TraceEvent) => void) | undefined;
  onToolEvent?: ToolEventSink | undefined;
  checkpoint?: RecordedCheckpoint | undefined;
}

/**
 * `deps` with the recorder fed from its trace and tool events, and a write at each checkpoint (a
 * step boundary): what changed up to the checkpoint's statement goes in it (`keepCheckpoint`), and
 * after it lands a flush as ever sends whatever changed meanwhile (or all of it, when the checkpoint
 * could not carry it); that write is not awaited.
 */
export function withRunRecorder<D extends RecordedHooks>(deps: D, recorder: RunRecorder | undefined): D {
  if (!recorder) return deps;
  const { onTraceEvent, onToolEvent, checkpoint } = deps;
  return {
    ...deps,
    onTraceEvent: (e: TraceEvent) => {
      onTraceEvent?.(e);
      recorder.onTraceEvent(e);
    },
    onToolEvent: async (e) => {
      recorder.onToolEvent(e);
      await onToolEvent?.(e);
    },
    checkpoint: async (snapshot: RunSnapshot) => {
      // The step the checkpoint holds: it may land after the next step has begun.
      await checkpoint?.(snapshot, () => recorder.carry(snapshot.step));
      recorder.flush({ step: snapshot.step });
    },
  } satisfies RecordedHooks as D;
}
