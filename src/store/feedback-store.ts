import type { AuditLog } from "./audit.ts";
import type { Database } from "./db.ts";
import { and, asc, eq, sql } from "./drizzle.ts";
import { type FeedbackValueColumn, runFeedback, runs } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";

/** One 👍/👎 click on an answer: who rated which run, where the rated message is. */
export interface FeedbackClick {
  runId: string;
  userId: string;
  value: FeedbackValueColumn;
  teamId?: string | null;
  channelId?: string | null;
  messageTs?: string | null;
}

/** `value` is the person's rating after the click (the one they clicked); `previous` the one before. */
export type FeedbackResult =
  | { kind: "recorded"; value: FeedbackValueColumn; previous: FeedbackValueColumn | null }
  | { kind: "unknown_run" };

/** Where Hermes recorded a run: who asked, and the conversation and thread its answer went to. */
export interface RunPlace {
  userId: string | null;
  channelId: string | null;
  threadTs: string | null;
}

/** Why a click stored nothing (the `reason` of its `feedback.ignored` audit row). */
export type IgnoredReason =
  /** The value is not `up:<runId>` / `down:<runId>`. */
  | "bad_value"
  /** The value names a run Hermes has no record of. */
  | "unknown_run"
  /** The clicked message is not the answer Hermes posted for that run. */
  | "not_the_answer"
  /** The clicker is not the requester and not a member of the conversation the answer is in. */
  | "not_visible"
  /** Slack could not be asked about the clicked message or the conversation's members. */
  | "unchecked";

/** A click that stored nothing, as its `feedback.ignored` audit row records it. */
export interface IgnoredClick {
  reason: IgnoredReason;
  userId: string;
  /** The run the value named, when it parsed. */
  runId?: string | null;
  value?: FeedbackValueColumn | null;
  teamId?: string | null;
  channelId?: string | null;
  messageTs?: string | null;
}

export interface FeedbackRow {
  userId: string;
  value: FeedbackValueColumn;
  channelId: string | null;
  messageTs: string | null;
  updatedAt: Date;
}

export interface FeedbackStore {
  /**
   * Stores a click and its `run.feedback` audit row in one transaction. One row per run and user; the
   * last value wins: Slack sends a click that selects a side, and nothing when a selected side is
   * clicked again to unselect it, so the app cannot tell a rating taken back (SLACK-FACTS.md). A
   * person's clicks on one run are serialized, so the row always matches their last audit row. A run
   * Hermes has no record of stores nothing (`unknown_run`).
   */
  record(click: FeedbackClick): Promise<FeedbackResult>;
  /** A run's ratings, oldest first. */
  forRun(runId: string): Promise<FeedbackRow[]>;
  /** Where the run happened, as its record says; undefined for a run Hermes has no record of. */
  runPlace(runId: string): Promise<RunPlace | undefined>;
  /** Audits a click that stored nothing as `feedback.ignored` (who, which run, where, why). */
  ignore(click: IgnoredClick): Promise<void>;
}

/** The advisory lock class of a person's rating of a run (the two-key form; the key is their hash). */
const FEEDBACK_LOCK_CLASS = 0x4652; // "FR"

export function createFeedbackStore({ db, audit }: { db: Database; audit: AuditLog }): FeedbackStore {
  return withStorageErrors<FeedbackStore>(
    {
      record: (click) =>
        db.transaction(async (tx) => {
          // A first click has no rating row to lock yet, and two concurrent clicks must store and audit
          // in the same order (the row is the last audit row's value): one advisory lock per run and
          // person, in its own key space, so it never orders against the audit chain's lock.
          await tx.execute(
            sql`SELECT pg_advisory_xact_lock(${sql.raw(String(FEEDBACK_LOCK_CLASS))}, hashtext(${`${click.runId} ${click.userId}`}))`,
          );
          const [run] = await tx.select({ id: runs.id }).from(runs).where(eq(runs.id, click.runId));
          if (!run) return { kind: "unknown_run" } as const;
          const mine = and(eq(runFeedback.runId, click.runId), eq(runFeedback.userId, click.userId));
          const [before] = await tx.select({ value: runFeedback.value }).from(runFeedback).where(mine);
          const previous = before?.value ?? null;
          const value = click.value;
          const where = { channelId: click.channelId ?? null, messageTs: click.messageTs ?? null };
          await tx
            .insert(runFeedback)
            .values({ runId: click.runId, userId: click.userId, value, ...where })
            .onConflictDoUpdate({
              target: [runFeedback.runId, runFeedback.userId],
              set: { value, ...where, updatedAt: sql`now()` },
            });
          await audit.append(
            {
              action: "run.feedback",
              tool: "feedback",
              userId: click.userId,
              actorId: click.userId,
              teamId: click.teamId ?? null,
              channelId: click.channelId ?? null,
              runId: click.runId,
              args: previous && previous !== value ? { value, previous } : { value },
            },
            tx,
          );
          return { kind: "recorded", value, previous } as const;
        }),
      async forRun(runId) {
        return db
          .select({
            userId: runFeedback.userId,
            value: runFeedback.value,
            channelId: runFeedback.channelId,
            messageTs: runFeedback.messageTs,
            updatedAt: runFeedback.updatedAt,
          })
          .from(runFeedback)
          .where(eq(runFeedback.runId, runId))
          .orderBy(asc(runFeedback.createdAt), asc(runFeedback.userId));
      },
      async runPlace(runId) {
        const [place] = await db
          .select({ userId: runs.userId, channelId: runs.channelId, threadTs: runs.threadTs })
          .from(runs)
          .where(eq(runs.id, runId));
        return place;
      },
      async ignore(click) {
        await audit.append({
          action: "feedback.ignored",
          tool: "feedback",
          userId: click.userId,
          actorId: click.userId,
          teamId: click.teamId ?? null,
          channelId: click.channelId ?? null,
          runId: click.runId ?? null,
          args: {
            reason: click.reason,
            ...(click.value ? { value: click.value } : {}),
            message_ts: click.messageTs ?? null,
          },
          error: `feedback click ignored: ${click.reason.replace(/_/g, " ")}`,
        });
      },
    },
    "feedback",
  );
}
