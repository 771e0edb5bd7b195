import type { JsonValue } from "../core/canonical-json.ts";
import type { TenantKey } from "../core/tenant.ts";
import type { Database } from "./db.ts";
import { and, asc, desc, eq, gte, inArray, isNull, type SQL, sql } from "./drizzle.ts";
import { type RunStatus, type RunStepKind, runFeedback, runSteps, runs } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";
import { ofTenant } from "./tenant-filter.ts";

/** One run as a record: who asked what, how it ended, what it cost and where the time went. */
export interface RunSummary {
  runId: string;
  sessionKey: string;
  userId: string | null;
  teamId: string | null;
  channelId: string | null;
  threadTs: string | null;
  /** `completed` is shown to people as "answered". */
  status: RunStatus;
  stopReason: string | null;
  requestText: string | null;
  models: string[];
  steps: number;
  modelCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Null when a model's price is unknown (tokens only). */
  costUsd: number | null;
  /** With no cost: the models whose calls used tokens but had no configured price. */
  unpricedModels: string[];
  /** From start to finish (to the last write while the run is unfinished). */
  wallMs: number;
  modelMs: number;
  toolMs: number;
  approvalWaitMs: number;
  ownMs: number;
  createdAt: Date;
  finishedAt: Date | null;
  feedback: { up: number; down: number };
}

/** One row of a run's timeline (`run_steps`), in `seq` order. */
export interface RunStepRecord {
  seq: number;
  step: number;
  kind: RunStepKind;
  name: string | null;
  status: string | null;
  startedAt: Date;
  durationMs: number;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  data: JsonValue | null;
}

export interface RunDetail extends RunSummary {
  timeline: RunStepRecord[];
}

export interface RunFilter {
  /** One team's runs (`core/tenant.ts`); every reader a person reaches passes theirs. */
  team?: TenantKey;
  userId?: string;
  channelId?: string;
  status?: RunStatus;
  /** Inclusive lower bound on the run's start. */
  since?: Date;
  /** Default 20, max 100. */
  limit?: number;
}

export interface RunQuery {
  /** Runs newest first. */
  list(filter: RunFilter): Promise<RunSummary[]>;
  /**
   * One run with its timeline. With `requester`, only a run that person made; with `team`, only a
   * run of that team: another person's or another team's run is read exactly as a run that does not
   * exist (one statement, the same answer).
   */
  get(runId: string, scope?: { requester?: string; team?: TenantKey }): Promise<RunDetail | undefined>;
}

export const DEFAULT_RUN_PAGE = 20;
export const MAX_RUN_PAGE = 100;

const summaryColumns = {
  runId: runs.id,
  sessionKey: runs.sessionKey,
  userId: runs.userId,
  teamId: runs.teamId,
  channelId: runs.channelId,
  threadTs: runs.threadTs,
  status: runs.status,
  stopReason: runs.stopReason,
  requestText: runs.requestText,
  models: runs.models,
  steps: runs.steps,
  modelCalls: runs.modelCalls,
  promptTokens: runs.promptTokens,
  completionTokens: runs.completionTokens,
  costUsd: runs.costUsd,
  modelMs: runs.modelMs,
  toolMs: runs.toolMs,
  approvalWaitMs: runs.approvalWaitMs,
  ownMs: runs.ownMs,
  createdAt: runs.createdAt,
  updatedAt: runs.updatedAt,
  finishedAt: runs.finishedAt,
};

const stepColumns = {
  seq: runSteps.seq,
  step: runSteps.step,
  kind: runSteps.kind,
  name: runSteps.name,
  status: runSteps.status,
  startedAt: runSteps.startedAt,
  durationMs: runSteps.durationMs,
  promptTokens: runSteps.promptTokens,
  completionTokens: runSteps.completionTokens,
  costUsd: runSteps.costUsd,
  data: runSteps.data,
};

type SummaryRow = {
  [K in keyof typeof summaryColumns]: (typeof summaryColumns)[K]["_"]["notNull"] extends true
    ? (typeof summaryColumns)[K]["_"]["data"]
    : (typeof summaryColumns)[K]["_"]["data"] | null;
};

function toSummary(
  row: SummaryRow,
  feedback: { up: number; down: number },
  unpricedModels: string[],
): RunSummary {
  const end = row.finishedAt ?? row.updatedAt;
  return {
    runId: row.runId,
    sessionKey: row.sessionKey,
    userId: row.userId,
    teamId: row.teamId,
    channelId: row.channelId,
    threadTs: row.threadTs,
    status: row.status,
    stopReason: row.stopReason,
    requestText: row.requestText,
    models: row.models ?? [],
    steps: row.steps ?? 0,
    modelCalls: row.modelCalls ?? 0,
    promptTokens: Number(row.promptTokens ?? 0),
    completionTokens: Number(row.completionTokens ?? 0),
    costUsd: row.costUsd,
    unpricedModels,
    wallMs: Math.max(0, end.getTime() - row.createdAt.getTime()),
    modelMs: row.modelMs ?? 0,
    toolMs: row.toolMs ?? 0,
    approvalWaitMs: row.approvalWaitMs ?? 0,
    ownMs: row.ownMs ?? 0,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    feedback,
  };
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_RUN_PAGE;
  return Math.min(MAX_RUN_PAGE, Math.max(1, Math.trunc(limit)));
}

/** Reads runs as records (`runs` + `run_steps` + `run_feedback` counts) for Slack, the page and the CLI. */
export function createRunQuery({ db }: { db: Database }): RunQuery {
  async function feedbackFor(runIds: string[]): Promise<Map<string, { up: number; down: number }>> {
    const counts = new Map<string, { up: number; down: number }>();
    if (runIds.length === 0) return counts;
    const rows = await db
      .select({
        runId: runFeedback.runId,
        up: sql<number>`count(*) FILTER (WHERE ${runFeedback.value} = 'up')::int`,
        down: sql<number>`count(*) FILTER (WHERE ${runFeedback.value} = 'down')::int`,
      })
      .from(runFeedback)
      .where(inArray(runFeedback.runId, runIds))
      .groupBy(runFeedback.runId);
    for (const row of rows) counts.set(row.runId, { up: Number(row.up), down: Number(row.down) });
    return counts;
  }
  const none = { up: 0, down: 0 };

  /** For runs without a cost: the models of their calls that used tokens and have no price. */
  async function unpricedFor(rows: Array<{ runId: string; costUsd: number | null }>) {
    const models = new Map<string, string[]>();
    const runIds = rows.filter((r) => r.costUsd === null).map((r) => r.runId);
    if (runIds.length === 0) return models;
    const found = await db
      .selectDistinct({ runId: runSteps.runId, name: runSteps.name })
      .from(runSteps)
      .where(
        and(
          inArray(runSteps.runId, runIds),
          eq(runSteps.kind, "model"),
          isNull(runSteps.costUsd),
          sql`coalesce(${runSteps.promptTokens}, 0) + coalesce(${runSteps.completionTokens}, 0) > 0`,
        ),
      )
      .orderBy(asc(runSteps.runId), asc(runSteps.name));
    for (const { runId, name } of found) if (name) models.set(runId, [...(models.get(runId) ?? []), name]);
    return models;
  }

  return withStorageErrors(
    {
      async list(filter) {
        const where: (SQL | undefined)[] = [];
        if (filter.team !== undefined) where.push(ofTenant(runs.teamId, filter.team));
        if (filter.userId) where.push(eq(runs.userId, filter.userId));
        if (filter.channelId) where.push(eq(runs.channelId, filter.channelId));
        if (filter.status) where.push(eq(runs.status, filter.status));
        if (filter.since) where.push(gte(runs.createdAt, filter.since));
        const rows = await db
          .select(summaryColumns)
          .from(runs)
          .where(and(...where))
          .orderBy(desc(runs.createdAt), desc(runs.id))
          .limit(clampLimit(filter.limit));
        const [feedback, unpriced] = await Promise.all([
          feedbackFor(rows.map((r) => r.runId)),
          unpricedFor(rows),
        ]);
        return rows.map((row) =>
          toSummary(row, feedback.get(row.runId) ?? none, unpriced.get(row.runId) ?? []),
        );
      },

      async get(runId, scope = {}) {
        const mine = scope.requester === undefined ? undefined : eq(runs.userId, scope.requester);
        const team = scope.team === undefined ? undefined : ofTenant(runs.teamId, scope.team);
        const [row] = await db
          .select(summaryColumns)
          .from(runs)
          .where(and(eq(runs.id, runId), mine, team));
        if (!row) return undefined;
        const [feedback, unpriced, timeline] = await Promise.all([
          feedbackFor([runId]),
          unpricedFor([row]),
          db.select(stepColumns).from(runSteps).where(eq(runSteps.runId, runId)).orderBy(asc(runSteps.seq)),
        ]);
        return {
          ...toSummary(row, feedback.get(runId) ?? none, unpriced.get(runId) ?? []),
          timeline: timeline.map((s) => ({ ...s, data: s.data ?? null })),
        };
      },
    },
    "run records",
  );
}
