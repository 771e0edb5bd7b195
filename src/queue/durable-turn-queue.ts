import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { parseQueueJob, turnJobId } from "./jobs.ts";
import type { TurnQueue } from "./turn-queue.ts";

/** Where turn jobs wait durably until their event finishes (`slack_events.payload`). */
export interface PendingTurns {
  keepPending(eventId: string, job: unknown): Promise<void>;
  claimPending(claimedBefore: Date): Promise<Array<{ eventId: string; job: unknown }>>;
  finish(eventId: string, status: "done" | "failed"): Promise<void>;
}

export interface DurableTurnQueue extends TurnQueue {
  /**
   * Enqueues every turn accepted before `claimedBefore` (default: this queue's creation, i.e. by a
   * previous process) and never finished. Each one is claimed in the database first, so one caller
   * picks it up; its job id is the receiver's, so a turn still queued or running is not queued twice.
   * Resolves to their event ids.
   */
  recoverPending(claimedBefore?: Date): Promise<string[]>;
}

/**
 * The in-memory queue of the embedded default, made durable for turns: a turn job is written to its
 * event's row before it is queued (if that write fails, the enqueue fails and the user is told; a job
 * its event's claim stored already needs no write, or only its meta, beside the enqueue: `keptByClaim`), and the
 * row is cleared when the turn finishes. After a crash the next start picks the unfinished ones
 * up again; the worker then continues each turn from its last checkpoint, so none runs twice.
 * Resume jobs need nothing here: their state is in Postgres already.
 */
export function createDurableTurnQueue(o: {
  queue: TurnQueue;
  pending: PendingTurns;
  logger: Logger;
  startedAt?: Date;
}): DurableTurnQueue {
  const { queue, pending, logger } = o;
  // What was claimed before this queue existed was claimed by an earlier process (embedded: one
  // process at a time, so that one is gone); PGlite shares this clock, Postgres should be close to it.
  const startedAt = o.startedAt ?? new Date();
  return {
    async enqueue(job, options) {
      if (job.type !== "turn") return queue.enqueue(job, options);
      if (!options?.keptByClaim) {
        await pending.keepPending(job.eventId, job);
        return queue.enqueue(job, options);
      }
      // The claim stored this very job: nothing to write.
      if (options.keptByClaim === "whole") return queue.enqueue(job, options);
      // The claim stored the job: only its meta is new, so that write runs beside the enqueue, off
      // the turn's path. Either order is safe: the write changes a row only while its event is unfinished.
      const meta = pending
        .keepPending(job.eventId, job)
        .catch((err: unknown) =>
          logger.warn(
            { sessionKey: job.sessionKey, eventId: job.eventId, err: errorMessage(err) },
            "could not keep the turn's meta with its event; a recovery would run it as the claim stored it",
          ),
        );
      try {
        return await queue.enqueue(job, options);
      } finally {
        await meta;
      }
    },
    process: (handler, options) => queue.process(handler, options),
    pause: () => queue.pause(),
    stop: (options) => queue.stop(options),
    counts: () => queue.counts(),
    ...(queue.oldest ? { oldest: queue.oldest } : {}),
    isPending: (jobId) => queue.isPending(jobId),

    async recoverPending(claimedBefore = startedAt) {
      const claimed = await pending.claimPending(claimedBefore);
      const queued: string[] = [];
      for (const { eventId, job } of claimed) {
        const parsed = parseQueueJob(job);
        if (!parsed.ok || parsed.job.type !== "turn") {
          logger.error({ eventId }, "a kept turn job is not valid; it is not run");
          await pending.finish(eventId, "failed");
          continue;
        }
        // The same job id as the receiver's, so a turn already queued here is not queued twice.
        await queue.enqueue(parsed.job, { jobId: turnJobId(eventId) });
        queued.push(eventId);
      }
      if (queued.length > 0)
        logger.info({ turns: queued.length }, "picked up turns a previous process left unfinished");
      return queued;
    },
  };
}
