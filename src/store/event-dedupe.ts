import { type JsonValue, storableJsonText, toStorableJson } from "../core/canonical-json.ts";
import { HermesError } from "../core/errors.ts";
import { createClaimBatcher } from "./claim-batch.ts";
import type { Database } from "./db.ts";
import { and, asc, eq, inArray, isNotNull, lt, ne, sql } from "./drizzle.ts";
import { prepared } from "./prepared.ts";
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
  /**
   * Claims the event; `payload` (the turn job) is stored in the same statement, so an event is never
   * taken without what is needed to run it again after a crash.
   */
  claim(
    eventId: string,
    options: { sessionKey?: string | undefined; staleAfterMs: number; payload?: unknown },
  ): Promise<ClaimResult>;
  finish(eventId: string, status: "done" | "failed"): Promise<void>;
  /** True once the event's turn finished (done or failed): a queue's redelivery of it must not run again. */
  isFinished(eventId: string): Promise<boolean>;
  /**
   * Keeps the queued job of an unfinished event (the embedded queue lives in memory): it is cleared
   * when the event finishes, and picked up again by `claimPending` after a crash. A finished event
   * keeps no job; an event never claimed gets a row.
   */
  keepPending(eventId: string, job: unknown): Promise<void>;
  /**
   * Every unfinished event's kept job whose claim is older than `claimedBefore` (this process's
   * start: what is older was taken by a process before it), taken over by this process: the claim is
   * renewed in the same statement, so processes starting at the same time each get different events,
   * and a Slack retry meanwhile is a duplicate.
   */
  claimPending(claimedBefore: Date): Promise<Array<{ eventId: string; job: unknown }>>;
  /**
   * Unfinished events of thread `sessionKey` whose message (`payload.messageTs`) came before
   * `messageTs`, other than `eventId`, claimed within the last `withinMs` (an older claim is a dead
   * one, left to recovery): turns that must run before this one (at most a few ids).
   */
  earlierUnfinished(options: {
    sessionKey: string;
    messageTs: string;
    eventId: string;
    withinMs: number;
  }): Promise<string[]>;
}

/** A Slack message ts (`1712345678.123456`), the only form compared as a number. */
const SLACK_TS = /^[0-9]+([.][0-9]+)?$/;

/**
 * Durable Slack `event_id` dedupe in `slack_events`. Each outcome is one atomic statement, so any
 * number of replicas receiving the same delivery agree on a single owner. A `failed` event is not
 * retried when Slack redelivers it (the user was told it failed); only a vanished owner is replaced.
 * `received_at` is the time of the current claim.
 */
export function createEventDedupe({ db }: { db: Database }): EventDedupe {
  const insertClaim = createClaimBatcher(db);
  // Each runs once or twice a turn: built once (prepared.ts).
  const statusOf = prepared(() =>
    db
      .select({ status: slackEvents.status })
      .from(slackEvents)
      .where(eq(slackEvents.eventId, sql.placeholder("eventId"))),
  );
  const finishEvent = prepared(() =>
    db
      .update(slackEvents)
      .set({ status: sql`${sql.placeholder("status")}`, finishedAt: sql`now()`, payload: null })
      .where(eq(slackEvents.eventId, sql.placeholder("eventId"))),
  );
  const keepEventPending = prepared(() =>
    db
      .insert(slackEvents)
      .values({ eventId: sql.placeholder("eventId"), payload: sql.placeholder("payload") })
      .onConflictDoUpdate({
        target: slackEvents.eventId,
        set: { payload: sql`excluded.payload` },
        setWhere: eq(slackEvents.status, "received"),
      }),
  );
  const theirTs = sql`${slackEvents.payload}->>'messageTs'`;
  const earlierInSession = prepared(() =>
    db
      .select({ eventId: slackEvents.eventId })
      .from(slackEvents)
      .where(
        and(
          eq(slackEvents.status, "received"),
          eq(slackEvents.sessionKey, sql.placeholder("sessionKey")),
          ne(slackEvents.eventId, sql.placeholder("eventId")),
          sql`${slackEvents.receivedAt} > now() - make_interval(secs => ${sql.placeholder("withinSecs")})`,
          // CASE first: a row whose payload holds no ts is never cast (and never counts).
          sql`(case when ${theirTs} ~ ${SLACK_TS.source} then (${theirTs})::numeric end) < ${sql.placeholder("messageTs")}::numeric`,
        ),
      )
      .limit(5),
  );
  return withStorageErrors(
    {
      async claim(eventId, { sessionKey, staleAfterMs, payload }) {
        // A reclaim is only exactly-once when the threshold is far longer than one statement.
        if (!(staleAfterMs >= 1000)) {
          throw new HermesError("config_invalid", "staleAfterMs must be at least one second.");
        }
        const payloadJson = payload === undefined ? undefined : storableJsonText(payload);
        const claim = { eventId, sessionKey: sessionKey ?? null };
        if (await insertClaim(payloadJson === undefined ? claim : { ...claim, payloadJson })) return "new";

        const job = payloadJson === undefined ? {} : { payload: JSON.parse(payloadJson) as JsonValue };

        // Concurrent reclaimers queue on the row lock; after the first commits, the row is fresh
        // again and the others' WHERE no longer matches.
        const reclaimed = await db
          .update(slackEvents)
          .set({ receivedAt: sql`now()`, ...(sessionKey ? { sessionKey } : {}), ...job })
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
        const [row] = await statusOf().execute({ eventId });
        return row !== undefined && row.status !== "received";
      },

      async finish(eventId, status) {
        await finishEvent().execute({ eventId, status });
      },

      async keepPending(eventId, job) {
        await keepEventPending().execute({ eventId, payload: toStorableJson(job) });
      },

      async earlierUnfinished({ sessionKey, messageTs, eventId, withinMs }) {
        if (!SLACK_TS.test(messageTs)) return [];
        const rows = await earlierInSession().execute({
          sessionKey,
          eventId,
          withinSecs: withinMs / 1000,
          messageTs,
        });
        return rows.map((r) => r.eventId);
      },

      async claimPending(claimedBefore) {
        const open = and(
          eq(slackEvents.status, "received"),
          isNotNull(slackEvents.payload),
          lt(slackEvents.receivedAt, claimedBefore),
        );
        // Oldest first, as they were queued; the UPDATE re-checks each row after any concurrent claim
        // committed (its new claim time is not older than our start), so each goes to one caller.
        const waiting = await db
          .select({ eventId: slackEvents.eventId })
          .from(slackEvents)
          .where(open)
          .orderBy(asc(slackEvents.receivedAt), asc(slackEvents.eventId));
        if (waiting.length === 0) return [];
        const ids = waiting.map((w) => w.eventId);
        const taken = await db
          .update(slackEvents)
          .set({ receivedAt: sql`now()` })
          .where(and(open, inArray(slackEvents.eventId, ids)))
          .returning({ eventId: slackEvents.eventId, job: slackEvents.payload });
        const byId = new Map(taken.map((t) => [t.eventId, t.job]));
        return ids.filter((id) => byId.has(id)).map((eventId) => ({ eventId, job: byId.get(eventId) }));
      },
    },
    "Slack event dedupe",
  );
}
