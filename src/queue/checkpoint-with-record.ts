import type { CarriedWrite } from "../agent/record/record-writer.ts";
import type { RunSnapshot } from "../agent/run/snapshot.ts";
import type { Storage } from "../storage.ts";

/**
 * The run record's write a checkpoint may carry, taken as the checkpoint is sent (the recorder's
 * `carry`): undefined when there is none to carry.
 */
export type TakeRecord = () => CarriedWrite | undefined;

/** A checkpoint that can carry the run record's pending write in its statement (`keepCheckpoint`). */
export type RecordedCheckpoint = (snapshot: RunSnapshot, takeRecord?: TakeRecord) => Promise<void>;

/**
 * Stores a run's checkpoint (`RunStore.checkpoint`), with the run record's pending write in the same
 * statement when there is one and the record port can (`writeWithCheckpoint`): one round trip where
 * there were two. False when the run is no longer running (then neither is written, and the batch
 * stays for the record's next write). The record never fails the checkpoint: when the statement
 * with both fails, the checkpoint is written alone — it succeeds or fails as it always did — and
 * the batch goes with the record's next write (the flush that follows a checkpoint).
 */
export async function keepCheckpoint(
  s: Pick<Storage, "runs"> & Partial<Pick<Storage, "runRecords">>,
  snapshot: RunSnapshot,
  eventId: string | undefined,
  takeRecord?: TakeRecord,
): Promise<boolean> {
  const options = eventId ? { eventId } : {};
  const withCheckpoint = s.runRecords?.writeWithCheckpoint?.bind(s.runRecords);
  const carried = withCheckpoint ? takeRecord?.() : undefined;
  if (!withCheckpoint || !carried) return s.runs.checkpoint(snapshot, options);
  let both: boolean;
  try {
    both = await withCheckpoint(carried.batch, { snapshot, ...options });
  } catch (err) {
    // The record's write stays in flight until the checkpoint alone is done: the next record write
    // cannot land before it (for a new run, before the run's row exists).
    try {
      return await s.runs.checkpoint(snapshot, options);
    } finally {
      carried.notLanded(err);
    }
  }
  if (both) carried.landed();
  else carried.notLanded();
  return both;
}
