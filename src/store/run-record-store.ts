import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { DecidedApproval, RunRecordPort, RunRecordWrite } from "../agent/record/record-port.ts";
import { boundForRecord } from "./bound-for-record.ts";
import type { Database } from "./db.ts";
import { sql } from "./drizzle.ts";
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
 * round trip per step boundary, not per event. Everything textual is redacted with `redact` first.
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

  return withStorageErrors(
    {
      async write(w: RunRecordWrite) {
        // Redacting is linear but not free: a step of 40 parallel calls yields to the event loop between
        // groups of rows, so /healthz and acks are never held behind one record write.
        const rows: Array<Record<string, unknown>> = [];
        for (const [i, s] of w.steps.entries()) {
          if (i > 0 && i % 8 === 0) await yieldToLoop();
          rows.push(stepRow(s));
        }
        const t = w.totals;
        const request =
          w.requestText === undefined ? null : capText(redactText(w.requestText), MAX_REQUEST_TEXT);
        const stop = w.stopReason === undefined ? null : capText(redactText(w.stopReason), MAX_REQUEST_TEXT);
        const count = (column: string, delta: number, final: number | undefined) =>
          final === undefined ? sql`${sql.identifier(column)} + ${delta}` : sql`${final}`;
        await db.execute(sql`
          WITH input AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
              seq int, step int, kind text, name text, status text, started_at timestamptz,
              duration_ms int, prompt_tokens int, completion_tokens int, cost_usd double precision, data jsonb)
          ), steps AS (
            INSERT INTO ${runSteps} (run_id, seq, step, kind, name, status, started_at, duration_ms,
              prompt_tokens, completion_tokens, cost_usd, data)
            SELECT ${w.runId}, seq, step, kind, name, status, started_at, duration_ms,
              prompt_tokens, completion_tokens, cost_usd, data FROM input
            ON CONFLICT (run_id, seq) DO UPDATE SET
              step = excluded.step, kind = excluded.kind, name = excluded.name, status = excluded.status,
              started_at = excluded.started_at, duration_ms = excluded.duration_ms,
              prompt_tokens = excluded.prompt_tokens, completion_tokens = excluded.completion_tokens,
              cost_usd = excluded.cost_usd, data = excluded.data
            RETURNING 1
          )
          UPDATE ${runs} SET
            steps = greatest(steps, ${t.step}),
            model_calls = ${count("model_calls", t.modelCalls, t.final?.modelCalls)},
            prompt_tokens = ${count("prompt_tokens", t.promptTokens, t.final?.promptTokens)},
            completion_tokens = ${count("completion_tokens", t.completionTokens, t.final?.completionTokens)},
            cost_usd = ${t.costUsd === null ? sql`NULL` : sql`cost_usd + ${t.costUsd}::double precision`},
            models = models || ARRAY(
              SELECT m FROM jsonb_array_elements_text(${JSON.stringify(t.models)}::jsonb) WITH ORDINALITY AS u(m, o)
              WHERE NOT (m = ANY(models)) ORDER BY o),
            model_ms = model_ms + ${Math.round(t.modelMs)},
            tool_ms = tool_ms + ${Math.round(t.toolMs)},
            own_ms = own_ms + ${Math.round(t.ownMs)},
            request_text = coalesce(request_text, ${request}),
            stop_reason = coalesce(${stop}, stop_reason)
          WHERE id = ${w.runId}`);
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
