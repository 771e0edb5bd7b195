import type { Checkpoint, RunSnapshot } from "./snapshot.ts";

/**
 * A run's checkpoints and call-outcome records, in the order the run makes them, with only the
 * waits that durability needs:
 * - a checkpoint that must land before what follows it (`checkpoint`: the one written before a
 *   step's calls run, so no call runs unless a checkpoint knows about it) is awaited, by the loop
 *   after the step's calls and by each call before it runs (`CallEnv.checkpointed`): the calls'
 *   request rows and policy go on while it lands;
 * - the others (`checkpointBehind`: a run's first, and the one after a step's calls) go on while the
 *   next model request is prepared and sent, since nothing a model call does needs them: a worker
 *   that dies meanwhile is continued from the checkpoint before, and settles that step's calls from
 *   the audit log as it would have before (`queue/recover-run.ts`);
 * - a call's outcome record (`recordBehind`: its audit row) lands before the next checkpoint is
 *   written, so no checkpoint holds a result whose outcome the audit log does not have.
 * Checkpoints land one after another (the same row: a later one never lands first), and a failed one
 * fails every later checkpoint and `drain`. `drain` waits for all of it; every way out of a run
 * drains first, so once a run has returned, all of its state and records have landed.
 */
export interface RunWrites {
  /** Writes `snapshot` once everything before it has landed, and waits for it. */
  checkpoint(snapshot: RunSnapshot): Promise<void>;
  /** Writes `snapshot` once everything before it has landed, without waiting. */
  checkpointBehind(snapshot: RunSnapshot): void;
  /** An outcome record in flight (it never rejects: its writer logs what it could not record). */
  recordBehind(record: Promise<unknown>): void;
  /** Waits for everything started so far; rejects with the first checkpoint that failed. */
  drain(): Promise<void>;
}

export function createRunWrites(write: Checkpoint | undefined): RunWrites {
  let landed: Promise<void> = Promise.resolve();
  let records: Array<Promise<unknown>> = [];
  const start = (snapshot: RunSnapshot): Promise<void> => {
    const before = landed;
    const recorded = records;
    records = [];
    const next = (async () => {
      await before;
      await Promise.all(recorded);
      await write?.(snapshot);
    })();
    // Seen by whoever waits next (a later checkpoint or `drain`); never an unhandled rejection.
    next.catch(() => undefined);
    landed = next;
    return next;
  };
  return {
    checkpoint: (snapshot) => start(snapshot),
    checkpointBehind(snapshot) {
      void start(snapshot);
    },
    recordBehind(record) {
      records.push(record);
    },
    async drain() {
      const recorded = records;
      records = [];
      await Promise.all(recorded);
      await landed;
    },
  };
}

/**
 * Runs `body` (a run's steps) and drains `writes` on every way out: its result once everything has
 * landed; its error (not a later write's) when it threw.
 */
export async function drainedAfter<T>(writes: RunWrites, body: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await body();
  } catch (err) {
    await writes.drain().catch(() => undefined);
    throw err;
  }
  await writes.drain();
  return result;
}
