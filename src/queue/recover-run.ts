import type { RunSnapshot, SettledCall } from "../agent/run/snapshot.ts";
import { parseRunSnapshot } from "../agent/run/snapshot-schema.ts";
import { openCalls } from "../agent/run/state.ts";
import {
  DENIED_RESULT,
  EXPIRED_RESULT,
  RECOVERED_RESULT,
  REJECTED_RESULT,
} from "../agent/run/stop-messages.ts";
import { errorMessage, HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Storage } from "../storage.ts";
import { type CallSettlement, settleRunCalls } from "../store/reconcile.ts";
import { keepCheckpoint, type RecordedCheckpoint } from "./checkpoint-with-record.ts";
import type { DurableTurnQueue } from "./durable-turn-queue.ts";
import { resumeJobId } from "./jobs.ts";
import type { TurnOutput } from "./turn-output.ts";
import type { TurnQueue } from "./turn-queue.ts";

/**
 * Checkpoints into `runs` (status `running`), with the run record's pending write when given one to
 * take; a run no longer running must stop here.
 */
export function runCheckpoint(
  s: Pick<Storage, "runs"> & Partial<Pick<Storage, "runRecords">>,
  eventId?: string,
): RecordedCheckpoint {
  return async (snapshot, takeRecord) => {
    const kept = await keepCheckpoint(s, snapshot, eventId, takeRecord);
    if (!kept) {
      throw new HermesError(
        "storage_unavailable",
        `Run ${snapshot.run.runId} is no longer running here (it finished or was taken over); stopping.`,
      );
    }
  };
}

/**
 * The open calls of a run whose worker died, settled from the audit log: a call left requested (or
 * approved) without an outcome is marked `tool.failed interrupted` and its thread is told once — it
 * is never run again; a recorded outcome is given back to the model; a call never requested is
 * handled normally by the run.
 */
export async function settleOpenCalls(
  s: Pick<Storage, "db" | "audit"> & { output: TurnOutput },
  snapshot: RunSnapshot,
  log: Logger,
): Promise<Record<string, SettledCall>> {
  // Checked before its calls are looked up: a snapshot this release cannot read is refused whole.
  const { messages, run } = parseRunSnapshot(snapshot);
  const open = openCalls(messages);
  if (open.length === 0) return {};
  const found = await settleRunCalls({
    db: s.db.db,
    audit: s.audit,
    runId: run.runId,
    callIds: open.map((c) => c.id),
  });
  const out: Record<string, SettledCall> = {};
  for (const call of open) {
    const settlement = found[call.id] ?? { interruptedNow: false };
    out[call.id] = settledCall(settlement);
    if (!settlement.interruptedNow || !run.channelId || !run.threadTs) continue;
    await s.output
      .tellInterrupted({ channel: run.channelId, threadTs: run.threadTs, tool: call.name, runId: run.runId })
      .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "could not tell the thread"));
  }
  log.info({ calls: Object.fromEntries(open.map((c) => [c.id, out[c.id]!.kind])) }, "run continued");
  return out;
}

function settledCall(c: CallSettlement): SettledCall {
  switch (c.last) {
    case undefined:
      return { kind: "not_started" };
    case "tool.executed":
      return {
        kind: "result",
        content: RECOVERED_RESULT(`The call ran. ${c.resultSummary ?? "(no summary was kept)"}`),
        failed: false,
      };
    case "tool.failed":
      if (c.interruptedNow || c.error === "interrupted") return { kind: "interrupted" };
      return {
        kind: "result",
        content: RECOVERED_RESULT(`The call failed: ${c.error ?? "unknown"}`),
        failed: true,
      };
    case "tool.denied":
      return { kind: "result", content: DENIED_RESULT(c.error ?? "not permitted"), failed: false };
    case "tool.rejected":
      return { kind: "result", content: REJECTED_RESULT(c.actorId ?? undefined), failed: false };
    case "tool.expired":
      return { kind: "result", content: EXPIRED_RESULT, failed: false };
    default:
      // Requested or approved (now marked interrupted), or waiting for a decision that can no longer
      // resume this run: in every case, not run again.
      return { kind: "interrupted" };
  }
}

/**
 * At an embedded start-up (one process: everything unfinished is from before it): turns accepted
 * but not finished are queued again, and runs a dead worker left `running` outside any such turn
 * (a resume after approval) are continued from their checkpoints. With Redis, the queue gives a dead
 * worker's jobs to another worker instead.
 */
export async function recoverUnfinishedWork(
  s: Pick<Storage, "runs"> & { queue: TurnQueue; logger: Logger },
  queue: DurableTurnQueue,
): Promise<void> {
  const requeued = new Set(await queue.recoverPending());
  for (const run of await s.runs.listWithStatus("running")) {
    if (run.eventId && requeued.has(run.eventId)) continue; // its turn job continues it
    await s.queue.enqueue(
      { type: "resume", runId: run.runId, reason: "decided" },
      { jobId: resumeJobId(run.runId, "recover") },
    );
  }
}
