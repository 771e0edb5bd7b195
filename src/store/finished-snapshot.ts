import type { RunSnapshot } from "../agent/run/snapshot.ts";
import { type SQL, sql } from "./drizzle.ts";

/**
 * What `runs.snapshot` keeps once a run has finished. A running or paused run needs its whole state
 * (the messages with every call's raw arguments and every tool result, and the pending calls); a
 * finished run is never continued, so the statement that marks it finished drops all of that and
 * keeps only the run's identity, counters and its final answer (the last message, when it is the
 * assistant's answer: what a re-delivered event shows again instead of running the turn twice).
 * Retention later drops the answer too (`sweepStoredCalls`).
 */
export function finishedSnapshot(snapshot: RunSnapshot): RunSnapshot {
  const last = snapshot.messages.at(-1);
  return {
    ...snapshot,
    messages: last?.role === "assistant" ? [{ role: "assistant", content: last.content }] : [],
    pending: [],
  };
}

/** `finishedSnapshot` in SQL, over a stored snapshot (a column or a jsonb expression). */
export function finishedSnapshotSql(stored: SQL): SQL {
  const last = sql`(${stored})->'messages'->-1`;
  return sql`CASE WHEN jsonb_typeof(${stored}) = 'object' THEN
    ((${stored}) - 'messages' - 'pending') || jsonb_build_object(
      'pending', '[]'::jsonb,
      'messages', CASE WHEN ${last}->>'role' = 'assistant' AND jsonb_typeof(${last}->'content') = 'string'
        THEN jsonb_build_array(jsonb_build_object('role', 'assistant', 'content', ${last}->'content'))
        ELSE '[]'::jsonb END)
    ELSE ${stored} END`;
}
