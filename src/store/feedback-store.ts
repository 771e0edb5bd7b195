import { and, asc, eq, sql } from "drizzle-orm";
import type { AuditLog } from "./audit.ts";
import type { Database } from "./db.ts";
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

export type FeedbackResult =
  | { kind: "recorded"; previous: FeedbackValueColumn | null }
  | { kind: "unknown_run" };

export interface FeedbackRow {
  userId: string;
  value: FeedbackValueColumn;
  channelId: string | null;
  messageTs: string | null;
  updatedAt: Date;
}

export interface FeedbackStore {
  /**
   * Stores a click and its `run.feedback` audit row in one transaction. One row per run and user:
   * Slack sends no "unselected" event, so the last click wins. A run Hermes has no record of stores
   * nothing (`unknown_run`).
   */
  record(click: FeedbackClick): Promise<FeedbackResult>;
  /** A run's ratings, oldest first. */
  forRun(runId: string): Promise<FeedbackRow[]>;
}

export function createFeedbackStore({ db, audit }: { db: Database; audit: AuditLog }): FeedbackStore {
  return withStorageErrors<FeedbackStore>(
    {
      record: (click) =>
        db.transaction(async (tx) => {
          const [run] = await tx.select({ id: runs.id }).from(runs).where(eq(runs.id, click.runId));
          if (!run) return { kind: "unknown_run" } as const;
          const [before] = await tx
            .select({ value: runFeedback.value })
            .from(runFeedback)
            .where(and(eq(runFeedback.runId, click.runId), eq(runFeedback.userId, click.userId)))
            .for("update");
          const where = { channelId: click.channelId ?? null, messageTs: click.messageTs ?? null };
          await tx
            .insert(runFeedback)
            .values({ runId: click.runId, userId: click.userId, value: click.value, ...where })
            .onConflictDoUpdate({
              target: [runFeedback.runId, runFeedback.userId],
              set: { value: click.value, ...where, updatedAt: sql`now()` },
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
              args: { value: click.value },
            },
            tx,
          );
          return { kind: "recorded", previous: before?.value ?? null } as const;
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
    },
    "feedback",
  );
}
