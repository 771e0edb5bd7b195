import type { JsonValue } from "../core/canonical-json.ts";
import type { AuditLog } from "./audit.ts";
import { utcIso } from "./audit-chain.ts";
import type { Database } from "./db.ts";
import { sql } from "./drizzle.ts";
import type { AuditAction } from "./schema.ts";

/** Serializes reconcilers across replicas (transaction-level advisory lock). */
const RECONCILE_LOCK_KEY = 0x4845524d_0003; // "HERM" + 3
const OPEN_ACTIONS: readonly AuditAction[] = ["tool.requested", "tool.approved"];
const DEFAULT_LOOKBACK_MS = 7 * 24 * 3600 * 1000;

/** A call that started (or was approved) and never recorded an outcome; now `tool.failed interrupted`. */
export interface InterruptedCall {
  runId: string;
  toolCallId: string;
  tool: string;
  userId: string | null;
  teamId: string | null;
  channelId: string | null;
  threadTs: string | null;
  /** The last event before the crash, and when it was written (UTC ISO). */
  lastAction: "tool.requested" | "tool.approved";
  lastAt: string;
  /** Id of the `tool.failed` row written for it. */
  auditId: number;
}

export interface ReconcileOptions {
  db: Database;
  audit: AuditLog;
  /** Only calls whose last event is older than this: longer than any tool may legitimately run. */
  olderThanMs: number;
  /** How far back to look (default 7 days): start-up reconciles every time, so older ones were seen. */
  lookbackMs?: number;
}

type Candidate = {
  run_id: string;
  tool_call_id: string;
  tool: string;
  action: AuditAction;
  user_id: string | null;
  team_id: string | null;
  channel_id: string | null;
  thread_ts: string | null;
  args: JsonValue | null;
  args_sha256: string | null;
  created_at: string;
};

/**
 * Marks calls left without an outcome (last event `tool.requested` or `tool.approved`) as
 * `tool.failed` with error `interrupted`, and returns them so the Slack layer can tell each thread.
 * Never re-executes anything. Not interrupted: calls waiting for a human (`tool.approval_requested`
 * last), and calls of a run that is paused (it resumes them) or running with a checkpoint within
 * `olderThanMs` (a worker may be executing them now). Safe on several replicas at once: each call is
 * re-checked under a shared lock just before its row is written, so it is reported exactly once.
 */
export async function reconcileInterrupted(options: ReconcileOptions): Promise<InterruptedCall[]> {
  const { db, audit } = options;
  const candidates = await findCandidates(options);
  const out: InterruptedCall[] = [];
  for (const c of candidates) {
    const written = await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${sql.raw(String(RECONCILE_LOCK_KEY))})`);
      const last = await tx.execute<{ action: AuditAction }>(
        sql`SELECT action FROM audit_log WHERE run_id = ${c.run_id} AND tool_call_id = ${c.tool_call_id}
            ORDER BY id DESC LIMIT 1`,
      );
      if (last.rows[0]?.action !== c.action) return undefined; // settled meanwhile, or reconciled by another replica
      return audit.append(
        {
          action: "tool.failed",
          tool: c.tool,
          userId: c.user_id,
          teamId: c.team_id,
          channelId: c.channel_id,
          threadTs: c.thread_ts,
          runId: c.run_id,
          toolCallId: c.tool_call_id,
          args: c.args ?? undefined,
          argsSha256: c.args_sha256,
          error: "interrupted",
        },
        tx,
      );
    });
    if (!written) continue;
    out.push({
      runId: c.run_id,
      toolCallId: c.tool_call_id,
      tool: c.tool,
      userId: c.user_id,
      teamId: c.team_id,
      channelId: c.channel_id,
      threadTs: c.thread_ts,
      lastAction: c.action as InterruptedCall["lastAction"],
      lastAt: c.created_at,
      auditId: written.id,
    });
  }
  return out;
}

/** Each call's last event within the look-back window, when it is an open one and old enough. */
async function findCandidates(options: ReconcileOptions): Promise<Candidate[]> {
  const olderThan = options.olderThanMs / 1000;
  const lookback = (options.lookbackMs ?? DEFAULT_LOOKBACK_MS) / 1000;
  const open = sql.join(
    OPEN_ACTIONS.map((a) => sql`${a}`),
    sql`, `,
  );
  const result = await options.db.execute<Candidate>(sql`
    SELECT last.run_id, last.tool_call_id, last.tool, last.action, last.user_id, last.team_id,
           last.channel_id, last.thread_ts, last.args, last.args_sha256,
           ${utcIso(sql`last.created_at`)} AS created_at
      FROM (
        SELECT DISTINCT ON (run_id, tool_call_id) *
          FROM audit_log
         WHERE run_id IS NOT NULL AND tool_call_id IS NOT NULL
           AND created_at > now() - make_interval(secs => ${lookback})
         ORDER BY run_id, tool_call_id, id DESC
      ) AS last
     WHERE last.action IN (${open})
       -- At least that old (<=): within one tick of the clock (PGlite's is a millisecond) a call
       -- written just before this statement is as old as its start, and 0 means every call.
       AND last.created_at <= now() - make_interval(secs => ${olderThan})
       AND NOT EXISTS (
         SELECT 1 FROM runs
          WHERE runs.id = last.run_id
            AND (runs.status = 'paused'
                 OR (runs.status = 'running' AND runs.updated_at > now() - make_interval(secs => ${olderThan})))
       )
     ORDER BY last.id`);
  return result.rows;
}

/** Where one call of a run stands in the audit log, once any open request was marked interrupted. */
export interface CallSettlement {
  /** The last action before settling; undefined when the call was never requested. */
  last?: AuditAction;
  error?: string | null;
  resultSummary?: string | null;
  actorId?: string | null;
  /** This caller wrote the call's `tool.failed interrupted` row (so it is the one to tell the thread). */
  interruptedNow: boolean;
}

type LastRow = {
  action: AuditAction;
  tool: string;
  user_id: string | null;
  team_id: string | null;
  channel_id: string | null;
  thread_ts: string | null;
  args: JsonValue | null;
  args_sha256: string | null;
  error: string | null;
  result_summary: string | null;
  actor_id: string | null;
};

/**
 * For a run continued after its worker died: each given call's last audit event, and a call left
 * open (requested or approved, no outcome) is marked `tool.failed interrupted` here and now — never
 * re-executed. Under the reconciler's lock, so a start-up pass running at the same moment and this
 * agree on one row and one notice per call.
 */
export async function settleRunCalls(options: {
  db: Database;
  audit: AuditLog;
  runId: string;
  callIds: readonly string[];
}): Promise<Record<string, CallSettlement>> {
  const { db, audit, runId } = options;
  const out: Record<string, CallSettlement> = {};
  for (const callId of options.callIds) {
    out[callId] = await db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${sql.raw(String(RECONCILE_LOCK_KEY))})`);
      const found = await tx.execute<LastRow>(
        sql`SELECT action, tool, user_id, team_id, channel_id, thread_ts, args, args_sha256, error,
                   result_summary, actor_id
              FROM audit_log WHERE run_id = ${runId} AND tool_call_id = ${callId}
             ORDER BY id DESC LIMIT 1`,
      );
      const last = found.rows[0];
      if (!last) return { interruptedNow: false };
      const seen = {
        last: last.action,
        error: last.error,
        resultSummary: last.result_summary,
        actorId: last.actor_id,
      };
      if (!OPEN_ACTIONS.includes(last.action)) return { ...seen, interruptedNow: false };
      await audit.append(
        {
          action: "tool.failed",
          tool: last.tool,
          userId: last.user_id,
          teamId: last.team_id,
          channelId: last.channel_id,
          threadTs: last.thread_ts,
          runId,
          toolCallId: callId,
          args: last.args ?? undefined,
          argsSha256: last.args_sha256,
          error: "interrupted",
        },
        tx,
      );
      return { ...seen, interruptedNow: true };
    });
  }
  return out;
}
