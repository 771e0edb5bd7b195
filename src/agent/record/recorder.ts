import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { ModelPrices } from "../../core/model-prices.ts";
import type { ToolEvent } from "../run/policy-hook.ts";
import type { TraceEvent } from "../run/trace.ts";
import type { DecidedApproval, RunRecordPort } from "./record-port.ts";
import { initialRunRecordState, type RunRecordEvent, reduceRunRecord } from "./record-reducer.ts";
import { type CarriedWrite, createRunRecordWriter, type Delay } from "./record-writer.ts";

/**
 * Turns one run's trace and tool events into its record as it runs: the events go through a pure
 * reducer (record-reducer.ts) that keeps the rows, and its changes to the batch writer
 * (record-writer.ts), which sends them to the port at step boundaries — `flush()` at each
 * checkpoint, the first tool start of a step (so a crash mid-tool shows which tool was running) and
 * the end — one write each, in order (at a checkpoint, what changed up to it goes in the checkpoint's
 * own statement when it can carry it: `carry`). The loop's hot path stays in memory; a write that
 * fails is logged and never fails the run.
 */
export interface RunRecorder {
  onTraceEvent(e: TraceEvent): void;
  onToolEvent(e: ToolEvent): void;
  /**
   * Writes what changed since the last write (not awaited by the loop), with the run's step count as
   * of this call: `step`, that of a checkpoint that has just landed (the run may be further along by
   * then: a checkpoint lands behind it, see `agent/run/checkpoint-writes.ts`); without it, the latest event's.
   */
  flush(o?: { step?: number }): void;
  /**
   * The write a flush at `step` would send, for a checkpoint to carry in its own statement (taken as
   * that statement is sent); undefined when there is none to carry (see `RunRecordWriter.carry`).
   * The flush after the checkpoint lands still goes as usual, with whatever changed meanwhile.
   */
  carry(step: number): CarriedWrite | undefined;
  /** The run broke outside the loop (the worker's catch): a note with the error, then a write. */
  fail(reason: string, error: string): void;
  /**
   * Resolves once every write asked for so far has landed (or failed and was logged), or after
   * `maxMs` (default 5 s): an unreachable database never holds up the user's answer for long.
   */
  settled(maxMs?: number): Promise<void>;
}

export interface RunRecorderOptions {
  port: RunRecordPort;
  runId: string;
  prices: ModelPrices;
  logger: Logger;
  /** A new run's request (stored redacted and capped); absent when a stored run goes on. */
  requestText?: string;
  /** From `port.reopen` when a stored run goes on; 1 for a new run. */
  nextSeq?: number;
  /** The run's decided approvals (from `port.reopen`), shown on the rows of the calls they decided. */
  approvals?: Record<string, DecidedApproval>;
  now?: () => number;
  delay?: Delay;
}

export function createRunRecorder(o: RunRecorderOptions): RunRecorder {
  const now = o.now ?? Date.now;
  const writer = createRunRecordWriter({
    port: o.port,
    runId: o.runId,
    logger: o.logger,
    now,
    ...(o.requestText !== undefined ? { requestText: o.requestText } : {}),
    ...(o.delay ? { delay: o.delay } : {}),
  });
  let state = initialRunRecordState({
    prices: o.prices,
    ...(o.approvals ? { approvals: o.approvals } : {}),
    ...(o.nextSeq !== undefined ? { nextSeq: o.nextSeq } : {}),
  });
  const handle = (event: RunRecordEvent) => {
    const next = reduceRunRecord(state, event);
    state = next.state;
    writer.apply(next.writes);
  };
  // A fault in recording never fails the run: the event is logged as not recorded and the run goes on.
  const guarded = (event: RunRecordEvent) => {
    try {
      handle(event);
    } catch (err) {
      o.logger.warn({ runId: o.runId, err: errorMessage(err) }, "run record event not recorded");
    }
  };
  return {
    onTraceEvent: (event) => guarded({ type: "trace", event, at: now() }),
    onToolEvent: (event) => guarded({ type: "tool", event, at: now() }),
    flush: (f) => handle({ type: "flush", ...(f?.step !== undefined ? { step: f.step } : {}) }),
    fail: (reason, error) => handle({ type: "fail", reason, error, at: now() }),
    settled: (maxMs) => writer.settled(maxMs),
    carry: (step) => writer.carry(step),
  };
}
