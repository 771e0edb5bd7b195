import { and, eq, sql } from "drizzle-orm";
import { HermesError } from "../errors.ts";
import type { Database } from "./db.ts";
import { slackEvents } from "./schema.ts";
import { withStorageErrors } from "./storage-errors.ts";

/**
 * - `new`: first delivery; this process handles it.
 * - `duplicate`: handled already (done or failed), or being handled right now by someone else.
 * - `reclaimed`: claimed earlier but never finished and the claim is older than `staleAfterMs` (the
 *   process handling it died); this process now owns it.
 */
export type ClaimResult = "new" | "duplicate" | "reclaimed";

export interface EventDedupe {
  claim(
    eventId: string,
    options: { sessionKey?: string | undefined; staleAfterMs: number },
  ): Promise<ClaimResult>;
  finish(eventId: string, status: "done" | "failed"): Promise<void>;
  /** True once the event's turn finished (done or failed): a queue's redelivery of it must not run again. */
  isFinished(eventId: string): Promise<boolean>;
}

/**
 * Durable Slack `event_id` dedupe in `slack_events`. Each outcome is one atomic statement, so any
 * number of replicas receiving the same delivery agree on a single owner. A `failed` event is not
 * retried when Slack redelivers it (the user was told it failed); only a vanished owner is replaced.
 * `received_at` is the time of the current claim.
 */
export function createEventDedupe({ db }: { db: Database }): EventDedupe {
  return withStorageErrors(
    {
      async claim(eventId, { sessionKey, staleAfterMs }) {
        // A reclaim is only exactly-once when the threshold is far longer than one statement.
        if (!(staleAfterMs >= 1000)) {
          throw new HermesError("config_invalid", "staleAfterMs must be at least one second.");
        }
        const inserted = await db
          .insert(slackEvents)
          .values({ eventId, sessionKey: sessionKey ?? null })
          .onConflictDoNothing({ target: slackEvents.eventId })
          .returning({ eventId: slackEvents.eventId });
        if (inserted.length > 0) return "new";

        // Concurrent reclaimers queue on the row lock; after the first commits, the row is fresh
        // again and the others' WHERE no longer matches.
        const reclaimed = await db
          .update(slackEvents)
          .set({ receivedAt: sql`now()`, ...(sessionKey ? { sessionKey } : {}) })
          .where(
            and(
              eq(slackEvents.eventId, eventId),
              eq(slackEvents.status, "received"),
              sql`${slackEvents.receivedAt} < now() - make_interval(secs => ${staleAfterMs / 1000})`,
            ),
          )
          .returning({ eventId: slackEvents.eventId });
        return reclaimed.length > 0 ? "reclaimed" : "duplicate";
      },

      async isFinished(eventId) {
        const [row] = await db
          .select({ status: slackEvents.status })
          .from(slackEvents)
          .where(eq(slackEvents.eventId, eventId));
        return row !== undefined && row.status !== "received";
      },

      async finish(eventId, status) {
        await db
          .update(slackEvents)
          .set({ status, finishedAt: sql`now()` })
          .where(eq(slackEvents.eventId, eventId));
      },
    },
    "Slack event dedupe",
  );
}
