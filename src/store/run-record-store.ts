import { setImmediate as yieldToLoop } from "node:timers/promises";
import type {
  CheckpointToWrite,
  DecidedApproval,
  RunRecordPort,
  RunRecordWrite,
} from "../agent/record/record-port.ts";
import { boundForRecord } from "./bound-for-record.ts";
import type { Database } from "./db.ts";
import { type SQL, sql } from "./drizzle.ts";
import { checkpointValues } from "./run-store.ts";
import { approvals, runSteps, runs } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";

/** Longest request text kept on a run (after redaction). */
export const MAX_REQUEST_TEXT = 500;
/** Longest tool result preview kept on a step (after redaction). */
export const MAX_RESULT_PREVIEW = 300;
/** Longest tool arguments (as JSON) kept on a step; longer ones keep a preview of that length. */
export const MAX_ARGS_JSON = 2000;

/**
 * Caps already-redacted text: redaction runs on the whole text first, since cutting first could leave
 * half an email or card number that no longer looks like one.
 */
export function capText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The Postgres side of the run recorder: each write is ONE statement (the steps upserted by
 * `(run_id, seq)` from one jsonb parameter, and the run's totals updated), so a run's record costs a
 * round trip per step boundary, not per event, and none of its own when it goes with the run's
 * checkpoint (`writeWithCheckpoint`). Everything textual is redacted with `redact` first.
 */
export function createRunRecordStore({
  db,
  redact,
}: {
  db: Database;
  redact: (value: unknown) => unknown;
}): RunRecordPort {
  const redactText = (text: string) => String(redact(boundForRecord(text)));

  function stepData(data: Record<string, unknown>): Record<string, unknown> {
    const out = redact(boundForRecord(data)) as Record<string, unknown>;
    if (typeof out.resultPreview === "string")
      out.resultPreview = capText(out.resultPreview, MAX_RESULT_PREVIEW);
    if (out.args !== undefined) {
      const json = JSON.stringify(out.args) ?? "null";
      if (json.length > MAX_ARGS_JSON) out.args = { preview: capText(json, MAX_ARGS_JSON) };
    }
    return out;
  }

  function stepRow(s: RunRecordWrite["steps"][number]): Record<string, unknown> {
    return {
      seq: s.seq,
      step: s.step,
      kind: s.kind,
      name: s.name,
      status: s.status,
      started_at: s.startedAt.toISOString(),
      duration_ms: Math.max(0, Math.round(s.durationMs)),
      prompt_tokens: s.promptTokens,
      completion_tokens: s.completionTokens,
      cost_usd: s.costUsd,
      data: stepData(s.data),
    };
  }

  /** A write's parts as its statements send them: step rows redacted and capped, texts too. */
  async function batchOf(w: RunRecordWrite): Promise<Batch> {
    // Redacting is linear but not free: a step of 40 parallel calls yields to the event loop between
    // groups of rows, so /healthz and acks are never held behind one record write.
    const rows: Array<Record<string, unknown>> = [];
    for (const [i, s] of w.steps.entries()) {
      if (i > 0 && i % 8 === 0) await yieldToLoop();
      rows.push(stepRow(s));
    }
    return {
      runId: w.runId,
      rowsJson: JSON.stringify(rows),
      totals: w.totals,
      request: w.requestText === undefined ? null : capText(redactText(w.requestText), MAX_REQUEST_TEXT),
      stop: w.stopReason === undefined ? null : capText(redactText(w.stopReason), MAX_REQUEST_TEXT),
    };
  }

  return withStorageErrors(
    {
      async write(w: RunRecordWrite) {
        const b = await batchOf(w);
        await db.execute(sql`
          WITH ${stepsUpserted(b)}
          UPDATE ${runs} SET ${totalsAdded(b, sql`${runs}`)}
          WHERE id = ${b.runId}`);
      },

      async writeWithCheckpoint(w: RunRecordWrite, { snapshot, eventId }: CheckpointToWrite) {
        const b = await batchOf(w);
        const c = checkpointValues(snapshot, eventId);
        const t = b.totals;
        // The checkpoint's upsert (as `RunStore.checkpoint`'s) sets the totals too: one statement may
        // change the run's row once. A new row starts from the columns' defaults (0, no models) plus
        // this batch; the steps are written only when the checkpoint is kept.
        const result = await db.execute<{ kept: number }>(sql`
          WITH kept AS (
            INSERT INTO ${runs} AS r (id, session_key, user_id, status, snapshot, event_id, team_id,
              channel_id, thread_ts, steps, model_calls, prompt_tokens, completion_tokens, cost_usd, models,
              model_ms, tool_ms, own_ms, request_text, stop_reason)
            VALUES (${c.id}, ${c.sessionKey}, ${c.userId}, 'running', ${c.snapshotJson}::jsonb, ${c.eventId},
              ${c.teamId}, ${c.channelId}, ${c.threadTs}, ${t.step},
              ${t.final?.modelCalls ?? t.modelCalls}, ${t.final?.promptTokens ?? t.promptTokens},
              ${t.final?.completionTokens ?? t.completionTokens},
              ${t.costUsd === null ? null : c.costUsd + t.costUsd}::double precision,
              ARRAY(SELECT m FROM jsonb_array_elements_text(${JSON.stringify(t.models)}::jsonb)
                WITH ORDINALITY AS u(m, o) ORDER BY o),
              ${Math.round(t.modelMs)}, ${Math.round(t.toolMs)}, ${Math.round(t.ownMs)}, ${b.request}, ${b.stop})
            ON CONFLICT (id) DO UPDATE SET
              snapshot = excluded.snapshot, updated_at = now(), ${totalsAdded(b, sql`r`)}
            WHERE r.status = 'running'
            RETURNING 1
          ), ${stepsUpserted(b, sql`WHERE EXISTS (SELECT 1 FROM kept)`)}
          SELECT count(*)::int AS kept FROM kept`);
        return Number(result.rows[0]?.kept ?? 0) > 0;
      },

      async reopen(runId: string) {
        // The approvals the run paused for, decided since: their rows close with the decision and
        // who made it; the run's approval wait grows by the longest of them (they waited together).
        await db.execute(sql`
          WITH closed AS (
            UPDATE ${runSteps} s SET
              status = a.status,
              duration_ms = greatest(0, (extract(epoch FROM (now() - s.started_at)) * 1000)::int),
              data = coalesce(s.data, '{}'::jsonb) || jsonb_build_object(
                'approvalId', a.id, 'decidedBy', a.decided_by, 'decidedAt', a.decided_at)
            FROM ${approvals} a
            WHERE s.run_id = ${runId} AND s.kind = 'approval' AND s.status = 'pending'
              AND a.run_id = s.run_id AND a.tool_call_id = s.data->>'callId' AND a.status <> 'pending'
            RETURNING s.duration_ms
          )
          UPDATE ${runs} SET approval_wait_ms = approval_wait_ms + coalesce((SELECT max(duration_ms) FROM closed), 0)
          WHERE id = ${runId}`);
        const [next, decided] = await Promise.all([
          db.execute<{ n: number }>(
            sql`SELECT coalesce(max(seq), 0)::int + 1 AS n FROM ${runSteps} WHERE run_id = ${runId}`,
          ),
          db.execute<{ id: string; tool_call_id: string | null; status: string; decided_by: string | null }>(
            sql`SELECT id, tool_call_id, status, decided_by FROM ${approvals} WHERE run_id = ${runId} AND status <> 'pending'`,
          ),
        ]);
        const found: Record<string, DecidedApproval> = {};
        for (const a of decided.rows) {
          if (a.tool_call_id)
            found[a.tool_call_id] = { approvalId: a.id, status: a.status, decidedBy: a.decided_by };
        }
        return { nextSeq: Number(next.rows[0]?.n ?? 1), approvals: found };
      },
    },
    "run records",
  );
}

/** A record write ready for its statement (`createRunRecordStore`'s `batchOf`). */
interface Batch {
  runId: string;
  /** The step rows (redacted, capped) as one jsonb parameter. */
  rowsJson: string;
  totals: RunRecordWrite["totals"];
  request: string | null;
  stop: string | null;
}

/**
 * The CTEs `input` and `steps`: the batch's step rows upserted by `(run_id, seq)` from one jsonb
 * parameter (`only`: a condition on writing them at all).
 */
function stepsUpserted(b: Batch, only: SQL = sql``): SQL {
  return sql`input AS (
      SELECT * FROM jsonb_to_recordset(${b.rowsJson}::jsonb) AS x(
        seq int, step int, kind text, name text, status text, started_at timestamptz,
        duration_ms int, prompt_tokens int, completion_tokens int, cost_usd double precision, data jsonb)
    ), steps AS (
      INSERT INTO ${runSteps} (run_id, seq, step, kind, name, status, started_at, duration_ms,
        prompt_tokens, completion_tokens, cost_usd, data)
      SELECT ${b.runId}, seq, step, kind, name, status, started_at, duration_ms,
        prompt_tokens, completion_tokens, cost_usd, data FROM input ${only}
      ON CONFLICT (run_id, seq) DO UPDATE SET
        step = excluded.step, kind = excluded.kind, name = excluded.name, status = excluded.status,
        started_at = excluded.started_at, duration_ms = excluded.duration_ms,
        prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
        cost_usd = excluded.cost_usd, data = excluded.data
      RETURNING 1
    )`;
}

/**
 * The run's totals with the batch's added (`r`: the run's row as the statement names it): counts and
 * times add up (the run's end sets its cumulative counts instead), the cost becomes unknown for good,
 * models are appended when new, the request is kept once set, the stop reason set when known.
 */
function totalsAdded(b: Batch, r: SQL): SQL {
  const t = b.totals;
  const count = (column: string, delta: number, final: number | undefined) =>
    final === undefined ? sql`${r}.${sql.identifier(column)} + ${delta}` : sql`${final}`;
  return sql`
    steps = greatest(${r}.steps, ${t.step}),
    model_calls = ${count("model_calls", t.modelCalls, t.final?.modelCalls)},
    prompt_tokens = ${count("prompt_tokens", t.promptTokens, t.final?.promptTokens)},
    completion_tokens = ${count("completion_tokens", t.completionTokens, t.final?.completionTokens)},
    cost_usd = ${t.costUsd === null ? sql`NULL` : sql`${r}.cost_usd + ${t.costUsd}::double precision`},
    models = ${r}.models || ARRAY(
      SELECT m FROM jsonb_array_elements_text(${JSON.stringify(t.models)}::jsonb) WITH ORDINALITY AS u(m, o)
      WHERE NOT (m = ANY(${r}.models)) ORDER BY o),
    model_ms = ${r}.model_ms + ${Math.round(t.modelMs)},
    tool_ms = ${r}.tool_ms + ${Math.round(t.toolMs)},
    own_ms = ${r}.own_ms + ${Math.round(t.ownMs)},
    request_text = coalesce(${r}.request_text, ${b.request}),
    stop_reason = coalesce(${b.stop}, ${r}.stop_reason)`;
}
