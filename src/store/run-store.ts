import type { RunSnapshot } from "../agent/run/snapshot.ts";
import { storableJsonText } from "../core/canonical-json.ts";
import { HermesError } from "../core/errors.ts";
import type { Database, Transaction } from "./db.ts";
import { and, asc, desc, eq, inArray, sql } from "./drizzle.ts";
import { finishedSnapshot, finishedSnapshotSql } from "./finished-snapshot.ts";
import { prepared } from "./prepared.ts";
import { approvals, type RunStatus, runs, type SlackEventStatus, slackEvents } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";

export interface RunRecord {
  runId: string;
  sessionKey: string;
  userId: string | null;
  status: RunStatus;
  snapshot: RunSnapshot;
  /** The Slack event whose turn started the run (none for runs started otherwise). */
  eventId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type FinishedRunStatus = Extract<RunStatus, "completed" | "failed" | "stopped">;

export interface RunStore {
  /**
   * Stores the snapshot of a run that stopped for approval and marks it `paused` (a new run, or one
   * that was resumed and paused again). Pass `tx` to commit it with the approvals it waits for.
   */
  savePaused(snapshot: RunSnapshot, tx?: Transaction): Promise<void>;
  /**
   * Stores the state of a run in progress (`running`), after each model step and each step's calls,
   * so a worker that dies can be continued from here instead of starting over. False when the run is
   * no longer running (it paused, finished, or another worker finished it): the caller must stop.
   */
  checkpoint(snapshot: RunSnapshot, options?: { eventId?: string }): Promise<boolean>;
  get(runId: string): Promise<RunRecord | undefined>;
  /** The run a Slack event's turn started, if any. */
  forEvent(eventId: string): Promise<RunRecord | undefined>;
  /**
   * What a turn starts from, in one read (one round trip, one snapshot): whether its Slack event is
   * finished (done or failed: `EventDedupe.isFinished`) and the run its turn started (`forEvent`).
   */
  forEventTurn(eventId: string): Promise<{ finished: boolean; run: RunRecord | undefined }>;
  /**
   * Runs with `status`, oldest update first: `running` at an embedded start-up were all interrupted;
   * `paused` wait for approvals.
   */
  listWithStatus(status: "running" | "paused"): Promise<RunRecord[]>;
  /**
   * Atomically `paused → running`. Returns the snapshot to resume, or undefined when the run is not
   * paused (someone else claimed it, it finished, or it does not exist): a run resumes once, even when
   * two of its approvals are decided at the same moment.
   */
  claimForResume(runId: string): Promise<RunSnapshot | undefined>;
  /**
   * Marks a run finished (with its final state, when given) at `finished_at`; false when there is no
   * such run. The same statement cuts the stored state down to `finishedSnapshot`: raw arguments and
   * tool results live in `runs.snapshot` only while the run is running or paused.
   */
  finish(runId: string, status: FinishedRunStatus, snapshot?: RunSnapshot): Promise<boolean>;
  /**
   * Paused runs none of whose approvals is still pending (the last decided over 15 s ago), each with
   * its most recently decided approval: their resume is overdue (its enqueue failed, e.g. with Redis
   * down, or died with its process).
   */
  listPausedAllDecided(): Promise<Array<{ runId: string; approvalId: string }>>;
  latestPausedForSession(sessionKey: string): Promise<RunRecord | undefined>;
  /**
   * Runs still `running` with no update for `olderThanMs` (oldest first, at most 100): longer than any
   * turn and than the queue takes to hand a dead worker's job out again.
   */
  listStale(olderThanMs: number): Promise<Array<Pick<RunRecord, "runId" | "eventId">>>;
  /**
   * Marks `failed` (with `stopReason`) those of `runIds` that are still `running` with no update for
   * `olderThanMs` (their state cut down as `finish` does), and returns them. One statement: with several replicas sweeping, each run is
   * returned once.
   */
  abandonStale(runIds: string[], olderThanMs: number, stopReason: string): Promise<RunRecord[]>;
}

const columns = {
  runId: runs.id,
  sessionKey: runs.sessionKey,
  userId: runs.userId,
  status: runs.status,
  snapshot: runs.snapshot,
  eventId: runs.eventId,
  createdAt: runs.createdAt,
  updatedAt: runs.updatedAt,
};

/** Where the run happened, set when its row is created (the recorder fills in the rest as it runs). */
const recordColumns = ({ run }: RunSnapshot) => ({
  teamId: run.teamId ?? null,
  channelId: run.channelId ?? null,
  threadTs: run.threadTs ?? null,
  // The cost adds up from 0; it becomes null (unknown) once a model without a price answers.
  costUsd: 0,
});

/**
 * What a checkpoint stores of a running run: its state and where it happened (also what
 * `run-record-store.ts` stores when a record batch goes with the checkpoint).
 */
export function checkpointValues(snapshot: RunSnapshot, eventId: string | undefined) {
  const { run } = snapshot;
  return {
    id: run.runId,
    sessionKey: run.sessionKey,
    userId: run.userId,
    // JSON text (`storableJsonText`), cast by Postgres: one stringify of the snapshot, not
    // toStorableJson's stringify and parse and then the jsonb column's stringify again.
    snapshotJson: storableJsonText(snapshot),
    eventId: eventId ?? null,
    ...recordColumns(snapshot),
  };
}

/** No update for `olderThanMs` (by Postgres's clock: one clock for every replica). */
const staleSince = (olderThanMs: number) =>
  sql`${runs.updatedAt} < now() - make_interval(secs => ${olderThanMs / 1000})`;

// jsonb holds plain JSON; the loop wrote the snapshot as JSON, so reading it back is the same value.
const toRecord = (row: Omit<RunRecord, "snapshot"> & { snapshot: unknown }): RunRecord => ({
  ...row,
  snapshot: row.snapshot as RunSnapshot,
});

export function createRunStore({ db }: { db: Database }): RunStore {
  // Run before each tool call and at each step: built once (prepared.ts).
  const checkpointRun = prepared(() =>
    db
      .insert(runs)
      .values({
        id: sql.placeholder("id"),
        sessionKey: sql.placeholder("sessionKey"),
        userId: sql.placeholder("userId"),
        status: "running",
        snapshot: sql`${sql.placeholder("snapshotJson")}::jsonb`,
        eventId: sql.placeholder("eventId"),
        teamId: sql.placeholder("teamId"),
        channelId: sql.placeholder("channelId"),
        threadTs: sql.placeholder("threadTs"),
        costUsd: sql.placeholder("costUsd"),
      })
      .onConflictDoUpdate({
        target: runs.id,
        set: { snapshot: sql`excluded.snapshot`, updatedAt: sql`now()` },
        setWhere: eq(runs.status, "running"),
      })
      .returning({ id: runs.id }),
  );
  const runForEvent = prepared(() =>
    db
      .select(columns)
      .from(runs)
      .where(eq(runs.eventId, sql.placeholder("eventId"))),
  );
  // One row whether or not the event or its run exists: the event's status (null when it has no
  // row: not finished) beside its run's columns (null when it has none; event ids are unique in runs).
  const eventTurn = prepared(() =>
    db
      .select({
        eventStatus: sql<SlackEventStatus | null>`(select ${slackEvents.status} from ${slackEvents} where ${slackEvents.eventId} = ${sql.placeholder("eventId")})`,
        ...columns,
      })
      .from(sql`(values (1)) as one(x)`)
      .leftJoin(runs, eq(runs.eventId, sql.placeholder("eventId"))),
  );
  const finishRun = prepared(() =>
    db
      .update(runs)
      .set({
        status: sql`${sql.placeholder("status")}`,
        updatedAt: sql`now()`,
        finishedAt: sql`now()`,
        snapshot: sql`${sql.placeholder("snapshotJson")}::jsonb`,
      })
      .where(eq(runs.id, sql.placeholder("runId")))
      .returning({ id: runs.id }),
  );
  const latestPaused = prepared(() =>
    db
      .select(columns)
      .from(runs)
      .where(and(eq(runs.sessionKey, sql.placeholder("sessionKey")), eq(runs.status, "paused")))
      .orderBy(desc(runs.updatedAt), desc(runs.id))
      .limit(1),
  );
  return withStorageErrors(
    {
      async savePaused(snapshot, tx) {
        const { run } = snapshot;
        const stored = sql`${storableJsonText(snapshot)}::jsonb`;
        const saved = await (tx ?? db)
          .insert(runs)
          .values({
            id: run.runId,
            sessionKey: run.sessionKey,
            userId: run.userId,
            status: "paused",
            snapshot: stored,
            ...recordColumns(snapshot),
          })
          .onConflictDoUpdate({
            target: runs.id,
            set: { status: "paused", snapshot: sql`excluded.snapshot`, updatedAt: sql`now()` },
            // A finished run stays finished: pausing it again would let it resume a second time.
            setWhere: inArray(runs.status, ["running", "paused"]),
          })
          .returning({ id: runs.id });
        if (saved.length === 0) {
          throw new HermesError(
            "bad_request",
            `Run ${run.runId} has already finished; it cannot pause again.`,
          );
        }
      },

      async checkpoint(snapshot, options = {}) {
        const saved = await checkpointRun().execute(checkpointValues(snapshot, options.eventId));
        return saved.length > 0;
      },

      async forEvent(eventId) {
        const [row] = await runForEvent().execute({ eventId });
        return row && toRecord(row);
      },

      async forEventTurn(eventId) {
        const [row] = await eventTurn().execute({ eventId });
        const finished = row?.eventStatus != null && row.eventStatus !== "received";
        if (!row?.runId) return { finished, run: undefined };
        const { eventStatus: _, ...run } = row;
        // A run row was found: its columns are as `forEvent` reads them (none is null but `userId`, `eventId`).
        return { finished, run: toRecord(run as Parameters<typeof toRecord>[0]) };
      },

      async listPausedAllDecided() {
        const result = await db.execute<{ run_id: string; approval_id: string }>(sql`
          SELECT r.id AS run_id, last.id AS approval_id
          FROM ${runs} r
          CROSS JOIN LATERAL (
            SELECT a.id FROM ${approvals} a
            WHERE a.run_id = r.id AND a.status <> 'pending'
            ORDER BY a.decided_at DESC NULLS LAST, a.id DESC LIMIT 1
          ) last
          WHERE r.status = 'paused'
            AND NOT EXISTS (SELECT 1 FROM ${approvals} p WHERE p.run_id = r.id AND p.status = 'pending')
            -- The click that decided it enqueues the resume itself; only one missing for a while is due.
            AND NOT EXISTS (
              SELECT 1 FROM ${approvals} q
              WHERE q.run_id = r.id AND coalesce(q.decided_at, q.expires_at) > now() - interval '15 seconds'
            )
          ORDER BY r.updated_at, r.id
          LIMIT 500`);
        return result.rows.map((row) => ({ runId: row.run_id, approvalId: row.approval_id }));
      },

      async listWithStatus(status) {
        const rows = await db
          .select(columns)
          .from(runs)
          .where(eq(runs.status, status))
          .orderBy(asc(runs.updatedAt), asc(runs.id));
        return rows.map(toRecord);
      },

      async get(runId) {
        const [row] = await db.select(columns).from(runs).where(eq(runs.id, runId));
        return row && toRecord(row);
      },

      async claimForResume(runId) {
        const [row] = await db
          .update(runs)
          .set({ status: "running", updatedAt: sql`now()` })
          .where(and(eq(runs.id, runId), eq(runs.status, "paused")))
          .returning({ snapshot: runs.snapshot });
        return row ? (row.snapshot as RunSnapshot) : undefined;
      },

      async finish(runId, status, snapshot) {
        if (snapshot) {
          const done = await finishRun().execute({
            runId,
            status,
            snapshotJson: storableJsonText(finishedSnapshot(snapshot)),
          });
          return done.length > 0;
        }
        const rows = await db
          .update(runs)
          .set({
            status,
            updatedAt: sql`now()`,
            finishedAt: sql`now()`,
            snapshot: finishedSnapshotSql(sql`${runs.snapshot}`),
          })
          .where(eq(runs.id, runId))
          .returning({ id: runs.id });
        return rows.length > 0;
      },

      async listStale(olderThanMs) {
        return db
          .select({ runId: runs.id, eventId: runs.eventId })
          .from(runs)
          .where(and(eq(runs.status, "running"), staleSince(olderThanMs)))
          .orderBy(asc(runs.updatedAt), asc(runs.id))
          .limit(100);
      },

      async abandonStale(runIds, olderThanMs, stopReason) {
        if (runIds.length === 0) return [];
        const rows = await db
          .update(runs)
          .set({
            status: "failed",
            stopReason,
            updatedAt: sql`now()`,
            finishedAt: sql`now()`,
            snapshot: finishedSnapshotSql(sql`${runs.snapshot}`),
          })
          .where(and(inArray(runs.id, runIds), eq(runs.status, "running"), staleSince(olderThanMs)))
          .returning(columns);
        return rows.map(toRecord);
      },

      async latestPausedForSession(sessionKey) {
        const [row] = await latestPaused().execute({ sessionKey });
        return row && toRecord(row);
      },
    },
    "paused runs",
  );
}
