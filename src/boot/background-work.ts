import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Config } from "../config.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { RESUME_CAUSES, resumeJobId, turnJobId } from "../queue/jobs.ts";
import type { TeamScope } from "../queue/team-scope.ts";
import type { TurnOutput } from "../queue/turn-output.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { Scheduler } from "../schedules/scheduler.ts";
import { abandonedNotice } from "../slack/interrupted-notice.ts";
import type { SlackOutput } from "../slack/slack-output.ts";
import type { Storage } from "../storage.ts";
import { reconcileInterrupted } from "../store/reconcile.ts";
import { startRetentionSweeps } from "../store/retention-schedule.ts";
import type { RunRecord } from "../store/run-store.ts";
import { startConfiguredAuditCheckpoints } from "./audit-checkpoints.ts";

/** What the background work runs on: the stores, the queue, the output port and the turn limits. */
export interface BackgroundDeps {
  config: Config;
  logger: Logger;
  storage: Storage;
  runtime: Pick<AgentRuntime, "limits">;
  slack: Pick<SlackOutput, "client">;
  queue: TurnQueue;
  output: TurnOutput;
  /** OAuth installs: what is shown in Slack goes as the workspace it belongs to. */
  teams?: TeamScope | undefined;
}

/** `show` as `teamId`'s workspace's (OAuth installs), or as the one workspace's. */
const asTeam = (
  s: { teams?: TeamScope | undefined },
  teamId: string | null | undefined,
  show: () => Promise<void>,
) => (s.teams ? s.teams.run(teamId || undefined, show) : show());

const SWEEP_MS = 10_000;
/** Interrupted calls are looked for at start-up and then every this often (they may age into it). */
const RECONCILE_EVERY = 6;

/**
 * What runs beside the worker: at start-up, calls a crash left without an outcome are marked failed
 * (never retried) and their threads are told, and paused runs whose approvals were all decided while
 * Hermes was down are resumed; then approvals are expired on a timer and schedules fire.
 */
export async function startBackgroundWork(
  s: BackgroundDeps,
  scheduler: Scheduler,
  options: {
    /** Queues turns accepted but never queued (their receiver died); with Redis, on every sweep. */
    recoverTurns?: (() => Promise<unknown>) | undefined;
  } = {},
) {
  const log = s.logger.child({ component: "background" });
  await recover(s).catch((err: unknown) => log.error({ err: errorMessage(err) }, "start-up recovery failed"));
  await scheduler.start();
  const retention = startRetentionSweeps({
    db: s.storage.db.db,
    days: s.config.env.HERMES_RETENTION_DAYS,
    runDays: s.config.env.HERMES_RUN_RETENTION_DAYS,
    logger: log,
  });
  // Signed checkpoints of the audit head: evidence outside the database if its newest rows are deleted.
  const checkpoints = await startConfiguredAuditCheckpoints(s);
  let sweeping: Promise<void> = Promise.resolve();
  let sweeps = 0;
  const timer = setInterval(() => {
    const reconcile = ++sweeps % RECONCILE_EVERY === 0;
    sweeping = Promise.all([
      expireApprovals(s),
      resumeDecidedRuns(s),
      options.recoverTurns?.(),
      // With several replicas a call younger than a turn may still be running elsewhere, so start-up
      // leaves it; this later pass marks it once it is old enough (a quick restart is no escape).
      reconcile ? reconcileInterruptedCalls(s).then(() => abandonStaleRuns(s)) : 0,
    ]).then(
      () => undefined,
      (err: unknown) => log.warn({ err: errorMessage(err) }, "background sweep failed"),
    );
  }, SWEEP_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await retention.stop();
      await checkpoints.stop();
      await sweeping;
      await scheduler.stop();
    },
  };
}

/** Expired approvals: the card says so, and the run continues with "expired = rejected". */
export async function expireApprovals(s: {
  storage: Pick<Storage, "approvals">;
  queue: TurnQueue;
  output: TurnOutput;
  teams?: TeamScope | undefined;
}): Promise<number> {
  const expired = await s.storage.approvals.expireDue();
  for (const a of expired) {
    await asTeam(s, a.teamId, () => s.output.updateCard(a));
    if (a.runId) {
      await s.queue.enqueue(
        { type: "resume", runId: a.runId, approvalId: a.id, reason: "expired" },
        { jobId: resumeJobId(a.runId, a.id) },
      );
    }
  }
  return expired.length;
}

async function recover(s: BackgroundDeps) {
  await reconcileInterruptedCalls(s, { atStartup: true });
  await resumeDecidedRuns(s);
}

/**
 * Paused runs whose approvals are all decided get their resume job: the click's own enqueue may
 * have failed (Redis down) or died with its process. The job id is the click's, so a resume already
 * queued is not queued twice, and the run's atomic paused → running claim lets it resume once.
 */
export async function resumeDecidedRuns(s: {
  storage: Pick<Storage, "runs">;
  queue: TurnQueue;
}): Promise<number> {
  const due = await s.storage.runs.listPausedAllDecided();
  for (const { runId, approvalId } of due) {
    await s.queue.enqueue(
      { type: "resume", runId, approvalId, reason: "decided" },
      { jobId: resumeJobId(runId, approvalId) },
    );
  }
  return due.length;
}

/** Why an abandoned run stopped (its `stop_reason`, shown by `/hermes run` and the Runs panel). */
export const ABANDONED_REASON = "Its worker died and no other worker continued it.";

/**
 * Runs left `running` that nobody will continue: with Redis, the queue hands a dead worker's job to
 * another worker once (a second death fails the job, so a turn that kills workers cannot take the
 * fleet down), and then the run would stay `running` for good. Once it has had no update for longer
 * than a turn, plus the queue's hand-over time and a minute, and no job that would continue it is
 * still queued (a long backlog), it is marked failed, its event finished, and its thread told once.
 * Embedded: one process, whose start-up continues every running run.
 */
export async function abandonStaleRuns(
  s: Pick<BackgroundDeps, "config" | "logger" | "runtime" | "queue" | "output" | "teams"> & {
    storage: Pick<Storage, "runs" | "events" | "approvals">;
  },
): Promise<number> {
  if (!s.config.env.REDIS_URL) return 0;
  const handOverMs = s.config.env.HERMES_QUEUE_LOCK_SECONDS * 1500;
  const olderThanMs = (s.runtime.limits.turnTimeoutMs ?? 300_000) + handOverMs + 60_000;
  const candidates = await s.storage.runs.listStale(olderThanMs);
  const due: string[] = [];
  for (const run of candidates) if (!(await continuationQueued(s, run))) due.push(run.runId);
  const stale = await s.storage.runs.abandonStale(due, olderThanMs, ABANDONED_REASON);
  for (const record of stale) {
    const { runId, sessionKey } = record;
    s.logger.warn({ runId, sessionKey }, "run abandoned: its worker died and no other continued it");
    if (record.eventId)
      await s.storage.events
        .finish(record.eventId, "failed")
        .catch((err: unknown) =>
          s.logger.warn({ err: errorMessage(err), runId }, "could not finish its event"),
        );
    const { channelId, threadTs } = record.snapshot.run;
    if (!channelId || !threadTs) continue;
    // The thread's team is the first part of its key (`team:channel:thread_ts`).
    await asTeam(s, sessionKey.split(":")[0], () =>
      s.output.postAnswer(abandonedNotice(runId), { channel: channelId, threadTs }, { runId }),
    ).catch((err: unknown) => s.logger.warn({ err: errorMessage(err), runId }, "could not tell the thread"));
  }
  return stale.length;
}

/** Whether a job that would continue `run` is still queued or running: its turn's, or a resume's. */
async function continuationQueued(
  s: { storage: Pick<Storage, "approvals">; queue: TurnQueue },
  run: Pick<RunRecord, "runId" | "eventId">,
): Promise<boolean> {
  const ids = [
    ...(run.eventId ? [turnJobId(run.eventId)] : []),
    ...RESUME_CAUSES.map((cause) => resumeJobId(run.runId, cause)),
    ...(await s.storage.approvals.listForRun(run.runId)).map((a) => resumeJobId(run.runId, a.id)),
  ];
  for (const id of ids) if (await s.queue.isPending(id)) return true;
  return false;
}

/**
 * Calls left with a request but no outcome are marked `tool.failed interrupted` (never retried) and
 * their threads are told. One process (embedded): at start-up everything unfinished is from before
 * it. Several replicas (Redis): only calls older than any turn can be, so a call another replica is
 * executing now is left alone until it is.
 */
export async function reconcileInterruptedCalls(
  s: Pick<BackgroundDeps, "config" | "logger" | "runtime" | "output" | "teams"> & {
    storage: Pick<Storage, "db" | "audit">;
  },
  options: { atStartup?: boolean } = {},
): Promise<number> {
  const shared = Boolean(s.config.env.REDIS_URL);
  const olderThanMs = shared || !options.atStartup ? (s.runtime.limits.turnTimeoutMs ?? 300_000) + 60_000 : 0;
  const interrupted = await reconcileInterrupted({
    db: s.storage.db.db,
    audit: s.storage.audit,
    olderThanMs,
  });
  for (const call of interrupted) {
    if (!call.channelId || !call.threadTs) continue;
    const { channelId: channel, threadTs } = call;
    await asTeam(s, call.teamId, () =>
      s.output.tellInterrupted({ channel, threadTs, tool: call.tool, runId: call.runId }),
    ).catch((err: unknown) =>
      s.logger.warn({ err: errorMessage(err), runId: call.runId }, "could not tell the thread"),
    );
  }
  return interrupted.length;
}
