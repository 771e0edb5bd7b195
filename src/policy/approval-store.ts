import type { Decision } from "../agent/run/snapshot.ts";
import { toStorableJson } from "../core/canonical-json.ts";
import { HermesError } from "../core/errors.ts";
import type { ApproversRule } from "../core/permission-levels.ts";
import type { AuditLog } from "../store/audit.ts";
import type { Database, Transaction } from "../store/db.ts";
import { and, asc, eq, gt, type SQL, sql } from "../store/drizzle.ts";
import { newId } from "../store/ids.ts";
import { approvals } from "../store/schema.ts";
import { withStorageErrors } from "../store/storage-errors.ts";
import { type DecideInput, type DecideResult, decideApproval } from "./approval-decide.ts";
import { expireDueApprovals } from "./approval-expiry.ts";
import {
  type Approval,
  type ApprovalDeps,
  approvalAuditEvent,
  callBinding,
  nowSql,
} from "./approval-record.ts";
import { redact as redactPatterns } from "./redact.ts";

export type { DecideInput, DecideResult } from "./approval-decide.ts";
export type { Approval } from "./approval-record.ts";

export interface CreateApprovalInput {
  tool: string;
  /** The validated arguments of the call, exactly as they will be executed once approved. */
  args: Record<string, unknown>;
  requesterId: string;
  sessionKey: string;
  /** The runtime's `run.runId` and call id: reconciliation and resume find the call by them. */
  runId: string;
  toolCallId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
  threadTs?: string | undefined;
  /** Who may decide (the tool's `approvers`); default `requester_or_admin`. */
  approvers?: ApproversRule;
  /** Why policy asked for approval, shown on the card. */
  reason?: string | undefined;
}

export interface RunDecisions {
  /** Decided (approved, rejected or expired) calls of the run, by tool call id. */
  decisions: Record<string, Decision>;
  /** Approvals of the run still waiting for a human (including ones past due that no sweep expired yet). */
  pending: Approval[];
}

export interface ApprovalStore {
  /** Inserts a pending approval and its `tool.approval_requested` row in one transaction (`tx`'s, if given). */
  create(input: CreateApprovalInput, tx?: Transaction): Promise<Approval>;
  decide(input: DecideInput): Promise<DecideResult>;
  /** Expires pending approvals past due (with `tool.expired` rows); safe on several replicas at once. */
  expireDue(): Promise<Approval[]>;
  /** Records where the Block Kit card was posted, so it can be updated in place later. */
  setCard(approvalId: string, card: { channel: string; ts: string }): Promise<boolean>;
  get(approvalId: string): Promise<Approval | undefined>;
  /** Approvals still decidable (pending and not past due), oldest first. */
  listPending(filter?: { sessionKey?: string; runId?: string }): Promise<Approval[]>;
  /** Every approval of a run, any status, oldest first (to update each card after a resume). */
  listForRun(runId: string): Promise<Approval[]>;
  decisionsForRun(runId: string): Promise<RunDecisions>;
  /**
   * What a call is bound to in storage: the keyed hash of `argsSha256(tool, args)` (the audit log's
   * `args_sha256`). Approvals and paused runs store only this; only the audit key's holder can
   * compute it, so an edited stored argument cannot be given a matching binding.
   */
  binding(tool: string, args: unknown): string;
}

export interface ApprovalStoreOptions {
  db: Database;
  audit: AuditLog;
  /** `HERMES_APPROVAL_TTL_SECONDS`. */
  ttlSeconds: number;
  now?: () => Date;
  /**
   * The process's redactor (it knows the configured secret values): applied to the args and error of
   * every approval audit row on top of the pattern redaction, and to the args a decided or expired
   * approval keeps. Default: patterns only.
   */
  redact?: (value: unknown) => unknown;
}

export function createApprovalStore(options: ApprovalStoreOptions): ApprovalStore {
  const { db, ttlSeconds } = options;
  if (!(ttlSeconds > 0)) throw new HermesError("config_invalid", "The approval TTL must be positive.");
  const audit = options.redact ? redactingAudit(options.audit, options.redact) : options.audit;
  const given = options.redact;
  const redact = given ? (value: unknown) => given(redactPatterns(value)) : redactPatterns;
  const deps: ApprovalDeps = { db, audit, redact, ...(options.now ? { now: options.now } : {}) };
  const times = (): { createdAt: SQL; expiresAt: SQL } => {
    if (!options.now) {
      return { createdAt: sql`now()`, expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})` };
    }
    const at = options.now().getTime();
    const iso = (ms: number) => sql`${new Date(ms).toISOString()}::timestamptz`;
    return { createdAt: iso(at), expiresAt: iso(at + ttlSeconds * 1000) };
  };

  const insert = async (input: CreateApprovalInput, tx: Transaction) => {
    const [row] = await tx
      .insert(approvals)
      .values({
        id: newId("apr"),
        status: "pending",
        tool: input.tool,
        // The real args while pending, not a redacted copy: the card shows exactly what approving runs.
        // Deciding or expiring it redacts them; the binding is keyed, as in the audit log.
        args: toStorableJson(input.args),
        argsSha256: callBinding(deps, input.tool, input.args),
        requesterId: input.requesterId,
        sessionKey: input.sessionKey,
        runId: input.runId,
        toolCallId: input.toolCallId,
        teamId: input.teamId ?? null,
        channelId: input.channelId ?? null,
        threadTs: input.threadTs ?? null,
        approvers: input.approvers ?? "requester_or_admin",
        reason: input.reason ?? null,
        ...times(),
      })
      .returning();
    if (!row) throw new Error("approvals: insert returned no row");
    await audit.append(approvalAuditEvent(row, "tool.approval_requested"), tx);
    return row;
  };

  const listForRun = (runId: string) =>
    db
      .select()
      .from(approvals)
      .where(eq(approvals.runId, runId))
      .orderBy(asc(approvals.createdAt), asc(approvals.id));

  const store: Omit<ApprovalStore, "binding"> = withStorageErrors(
    {
      create: (input, tx) => (tx ? insert(input, tx) : db.transaction((t) => insert(input, t))),

      decide: (input) => decideApproval(deps, input),

      expireDue: () => expireDueApprovals(deps),

      async setCard(approvalId, card) {
        const rows = await db
          .update(approvals)
          .set({ cardChannel: card.channel, cardTs: card.ts })
          .where(eq(approvals.id, approvalId))
          .returning({ id: approvals.id });
        return rows.length > 0;
      },

      async get(approvalId) {
        const [row] = await db.select().from(approvals).where(eq(approvals.id, approvalId));
        return row;
      },

      listPending(filter = {}) {
        return db
          .select()
          .from(approvals)
          .where(
            and(
              eq(approvals.status, "pending"),
              gt(approvals.expiresAt, nowSql(deps)),
              filter.sessionKey === undefined ? undefined : eq(approvals.sessionKey, filter.sessionKey),
              filter.runId === undefined ? undefined : eq(approvals.runId, filter.runId),
            ),
          )
          .orderBy(asc(approvals.createdAt), asc(approvals.id));
      },

      listForRun: (runId) => listForRun(runId),

      async decisionsForRun(runId) {
        const rows = await listForRun(runId);
        // Newest approval per call wins (a call asked about again after a failed card post, say).
        const latest = new Map<string, Approval>();
        for (const row of rows) if (row.toolCallId) latest.set(row.toolCallId, row);
        const decisions: Record<string, Decision> = {};
        const pending: Approval[] = [];
        for (const [callId, row] of latest) {
          if (row.status === "pending") pending.push(row);
          else
            decisions[callId] = {
              status: row.status,
              argsSha256: row.argsSha256,
              ...(row.decidedBy ? { by: row.decidedBy } : {}),
            };
        }
        return { decisions, pending };
      },
    },
    "approvals",
  );
  // Synchronous, and no database involved: kept outside the storage-error wrapper.
  return { ...store, binding: (tool, args) => callBinding(deps, tool, args) };
}

/** `audit` whose `append` redacts each event's args and error with `redact` first. */
function redactingAudit(audit: AuditLog, redact: (value: unknown) => unknown): AuditLog {
  const wrapped = Object.create(audit) as AuditLog;
  wrapped.append = (event, ...rest) =>
    audit.append(
      {
        ...event,
        args: redact(event.args),
        ...(typeof event.error === "string" ? { error: String(redact(event.error)) } : {}),
      },
      ...rest,
    );
  return wrapped;
}
