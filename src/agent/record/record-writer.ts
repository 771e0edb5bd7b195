import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { RunRecordPort, RunRecordWrite, RunStepDraft, RunTotalsDraft } from "./record-port.ts";
import type { RunRecordChange, RunTotalsDelta } from "./record-reducer.ts";

/**
 * Sends a run's record changes to the port: changes only merge in memory; a write goes out when one is
 * asked for (a `flush` change), with everything that changed since the last write. One write is in
 * flight at a time: flushes meanwhile coalesce into the next one, so a slow or unreachable database
 * holds at most one write and one batch, never a queue of them. A write that fails is logged, its
 * changes go with the next one, and it never fails the run. A write can also go out inside another
 * statement (`carry`: a checkpoint's), one round trip for both; it counts as the write in flight.
 */
export interface RunRecordWriter {
  apply(changes: readonly RunRecordChange[]): void;
  /**
   * Resolves once every write asked for so far has landed (or failed and was logged), or after
   * `maxMs` (default 5 s): an unreachable database never holds up the user's answer for long.
   */
  settled(maxMs?: number): Promise<void>;
  /**
   * A flush (as of `step`) whose write goes out in another statement, a checkpoint's: what changed
   * since the last write, as that write's batch. Undefined when there is nothing to send, or while a
   * write is in flight (writes land in order: that flush then goes as usual, behind it). Until its
   * statement is done (`landed` or `notLanded`) the batch is the write in flight: flushes meanwhile
   * coalesce behind it, and `settled` waits for it.
   */
  carry(step: number): CarriedWrite | undefined;
}

/** A record batch sent inside another statement (`RunRecordWriter.carry`). */
export interface CarriedWrite {
  batch: RunRecordWrite;
  /** Its statement committed: the batch is written. */
  landed(): void;
  /**
   * Its statement wrote nothing (it failed: `err`, logged; or the checkpoint it went with was not
   * kept): its changes go with the next write, as a failed write's do.
   */
  notLanded(err?: unknown): void;
}

/** A wait that can be called off (the settle bound); injectable so tests need no real time. */
export type Delay = (ms: number) => { done: Promise<void>; cancel(): void };

export interface RunRecordWriterOptions {
  port: RunRecordPort;
  runId: string;
  logger: Logger;
  /** A new run's request, sent with the first write. */
  requestText?: string;
  now?: () => number;
  delay?: Delay;
}

/** Longest a worker waits for the record's last write before it goes on (see `settled`). */
const SETTLE_MS = 5000;

/** A timer that does not keep the process alive. */
const unrefDelay: Delay = (ms) => {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return { done, cancel: () => clearTimeout(timer) };
};

export function createRunRecordWriter(o: RunRecordWriterOptions): RunRecordWriter {
  const now = o.now ?? Date.now;
  const delay = o.delay ?? unrefDelay;
  // Rows changed since the last write, by seq (a row changed twice goes once, as it is now).
  const rows = new Map<number, RunStepDraft>();
  let totals = emptyTotals();
  let requestText = o.requestText;
  let stopReason: string | undefined;
  let stopReasonChanged = false;
  // Once a model without a price answered, the run's cost is unknown for good: every write says so.
  let costUnknown = false;
  let lastWriteAt = now();
  let inFlight: Promise<void> | undefined;
  let wanted = false;
  // The step count the next write carries: the highest as of the flushes it answers.
  let flushStep: number | undefined;

  /** What changed since the last write, taken out of the buffers (and how to put it back on failure). */
  function takeBatch(): { batch: RunRecordWrite; putBack(): void } | undefined {
    const at = now();
    // Nothing new since the last write (e.g. a checkpoint right after one): no round trip.
    if (rows.size === 0 && requestText === undefined && !stopReasonChanged && quiet(totals)) return undefined;
    const taken = [...rows.values()];
    rows.clear();
    const delta = totals;
    // Every write answers a flush, which set `flushStep`.
    delta.step = flushStep ?? 0;
    flushStep = undefined;
    const since = lastWriteAt;
    delta.ownMs = Math.max(0, at - since - delta.modelMs - delta.toolMs);
    if (costUnknown) delta.costUsd = null;
    lastWriteAt = at;
    totals = emptyTotals();
    const sentRequest = requestText;
    const batch: RunRecordWrite = {
      runId: o.runId,
      steps: taken,
      totals: delta,
      ...(sentRequest !== undefined ? { requestText: sentRequest } : {}),
      ...(stopReason !== undefined ? { stopReason } : {}),
    };
    requestText = undefined;
    const sentStop = stopReasonChanged;
    stopReasonChanged = false;
    return {
      batch,
      putBack() {
        // A row changed since keeps its newer version.
        for (const row of taken) if (!rows.has(row.seq)) rows.set(row.seq, row);
        putBackTotals(totals, delta);
        // Its own time is counted again by the next write, from where this one's began.
        lastWriteAt = since;
        requestText ??= sentRequest;
        stopReasonChanged ||= sentStop;
      },
    };
  }

  function notWritten(err: unknown) {
    o.logger.warn(
      { runId: o.runId, err: errorMessage(err) },
      "run record not written; kept for the next write",
    );
  }

  /** The write in flight is done: the flushes that came meanwhile go out now, as one write. */
  function afterWrite() {
    inFlight = undefined;
    if (wanted) {
      wanted = false;
      writeChanges();
    }
  }

  function writeChanges() {
    if (inFlight) {
      wanted = true;
      return;
    }
    const write = takeBatch();
    if (!write) return;
    inFlight = o.port
      .write(write.batch)
      .catch((err: unknown) => {
        notWritten(err);
        write.putBack();
      })
      .then(afterWrite);
  }

  /** A flush as of `step`: the highest step asked for goes with the next write. */
  function askedAt(step: number) {
    flushStep = Math.max(flushStep ?? step, step);
  }

  return {
    apply(changes) {
      for (const c of changes) {
        switch (c.kind) {
          case "row":
            rows.set(c.row.seq, c.row);
            break;
          case "totals":
            if (c.totals.costUsd === null) costUnknown = true;
            addTotals(totals, c.totals);
            break;
          case "stop":
            stopReason = c.reason;
            stopReasonChanged = true;
            break;
          case "flush":
            // The step as of this flush, not as of its write: a write that waits behind the one in
            // flight goes out when the run may be a step further on.
            askedAt(c.step);
            writeChanges();
            break;
        }
      }
    },

    async settled(maxMs = SETTLE_MS) {
      const waited = delay(maxMs);
      const idle = (async () => {
        while (inFlight) await inFlight;
      })();
      await Promise.race([idle, waited.done]);
      waited.cancel();
    },

    carry(step) {
      if (inFlight) return undefined;
      askedAt(step);
      const write = takeBatch();
      if (!write) return undefined;
      let done: (() => void) | undefined;
      inFlight = new Promise<void>((resolve) => {
        done = resolve;
      }).then(afterWrite);
      const end = (putBack: boolean, err?: unknown) => {
        if (!done) return; // answered once
        if (err !== undefined) notWritten(err);
        if (putBack) write.putBack();
        done();
        done = undefined;
      };
      return {
        batch: write.batch,
        landed: () => end(false),
        notLanded: (err) => end(true, err),
      };
    },
  };
}

function emptyTotals(): RunTotalsDraft {
  return {
    step: 0,
    modelCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    models: [],
    modelMs: 0,
    toolMs: 0,
    ownMs: 0,
  };
}

/** No counts and no time to add (the time since the last write alone is not worth a write). */
function quiet(t: RunTotalsDraft): boolean {
  return (
    t.modelCalls === 0 && t.modelMs === 0 && t.toolMs === 0 && t.models.length === 0 && t.final === undefined
  );
}

/** Adds an event's totals to those of the next write. */
function addTotals(into: RunTotalsDraft, d: RunTotalsDelta) {
  into.modelCalls += d.modelCalls;
  into.promptTokens += d.promptTokens;
  into.completionTokens += d.completionTokens;
  if (d.costUsd !== null && into.costUsd !== null) into.costUsd += d.costUsd;
  for (const m of d.models) if (!into.models.includes(m)) into.models.push(m);
  into.modelMs += d.modelMs;
  into.toolMs += d.toolMs;
  if (d.final) into.final = d.final;
}

/**
 * Adds a write's totals that did not land back into the next one (theirs come first); its own time
 * is not added: the next write counts it again, from where this one's began.
 */
function putBackTotals(into: RunTotalsDraft, back: RunTotalsDraft) {
  into.modelCalls += back.modelCalls;
  into.promptTokens += back.promptTokens;
  into.completionTokens += back.completionTokens;
  into.costUsd = into.costUsd === null || back.costUsd === null ? null : into.costUsd + back.costUsd;
  into.models = [...back.models, ...into.models.filter((m) => !back.models.includes(m))];
  into.modelMs += back.modelMs;
  into.toolMs += back.toolMs;
  into.final ??= back.final;
}
