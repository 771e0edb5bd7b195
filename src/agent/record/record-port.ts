/**
 * Where a run's record goes as it runs (`runs` record columns + `run_steps`): the recorder
 * (recorder.ts) builds these plain values from trace and tool events (record-reducer.ts) and
 * batches them into writes (run-record-writer.ts); the Postgres implementation
 * (store/run-record-store.ts) redacts and writes them. The agent never sees SQL.
 */

import type { RunSnapshot } from "../run/snapshot.ts";

export type RunStepKindDraft = "model" | "tool" | "approval" | "context" | "note";

/** One timeline row. Written again (same `seq`) while it changes: a tool `running`, then `ok`. */
export interface RunStepDraft {
  seq: number;
  step: number;
  kind: RunStepKindDraft;
  name: string | null;
  status: string | null;
  startedAt: Date;
  durationMs: number;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  /** Kind-specific fields; the store redacts every string in it. */
  data: Record<string, unknown>;
}

/** What a write adds to the run's totals (deltas since the last write), and what it sets. */
export interface RunTotalsDraft {
  /** The highest loop step reached (absolute). */
  step: number;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Added to the run's cost; null = a model without a known price answered: the run's cost is unknown. */
  costUsd: number | null;
  /** Models that answered, in order of first use (appended when new). */
  models: string[];
  modelMs: number;
  toolMs: number;
  ownMs: number;
  /**
   * At the end of a segment that finished the run: the run's cumulative counts (they include summary
   * calls the trace does not itemize) replace the summed deltas.
   */
  final?: { modelCalls: number; promptTokens: number; completionTokens: number };
}

export interface RunRecordWrite {
  runId: string;
  steps: RunStepDraft[];
  totals: RunTotalsDraft;
  /** The request that started the run (the store redacts and caps it); kept once set. */
  requestText?: string;
  /** Why the run stopped or failed (a reason code or sentence); set when known. */
  stopReason?: string;
}

/** A decided approval of a run, as the record shows it on the call's row. */
export interface DecidedApproval {
  approvalId: string;
  status: string;
  decidedBy: string | null;
}

export interface RunRecordPort {
  /**
   * Before a stored run goes on (a resume, or a continuation after a crash): the next free `seq`, and
   * the approvals it waited for, closed in the record (their wait counted from the pause to now).
   */
  reopen(runId: string): Promise<{ nextSeq: number; approvals: Record<string, DecidedApproval> }>;
  write(w: RunRecordWrite): Promise<void>;
  /**
   * `w` and the run's checkpoint (stored as `RunStore.checkpoint` stores it) in one statement, one
   * round trip for both. False when the run is no longer running: then neither is written. A failure
   * writes neither. Optional: without it, a checkpoint and a write go separately.
   */
  writeWithCheckpoint?(w: RunRecordWrite, checkpoint: CheckpointToWrite): Promise<boolean>;
}

/** The checkpoint a record write goes with (`RunRecordPort.writeWithCheckpoint`). */
export interface CheckpointToWrite {
  snapshot: RunSnapshot;
  /** The Slack event whose turn started the run. */
  eventId?: string;
}
