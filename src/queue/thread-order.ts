import { setTimeout as sleep } from "node:timers/promises";
import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Logger } from "../core/logger.ts";
import type { Storage } from "../storage.ts";
import type { TurnJob } from "./jobs.ts";

/**
 * How long a turn lets an earlier message of its thread go first when that one has not even started
 * (its receiver died before queueing it: the background sweep queues it within ~15 s). After that the
 * turn runs anyway: a lost message must not hold its thread up for good.
 */
export const WAIT_FOR_EARLIER_MS = 30_000;
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1_000;

/**
 * Runs a thread's turn under its lock, after the turns of the thread's earlier messages. The lock
 * alone keeps turns from overlapping, but two quick messages may reach workers in either order (two
 * receivers, or two workers taking them at the same moment). So under the lock, a turn whose thread
 * still has an unfinished earlier message (by Slack ts) lets go of the lock and tries again a moment
 * later: the earlier turn runs first, and the later one sees it in the history.
 * A message that starts its thread (its ts is the thread's) has no earlier message in it: Slack
 * gives every reply a later ts than its thread's first message, so its turn runs without the check.
 * `o.reads`, when given, starts the turn's first reads under the lock alongside that check (one
 * round trip instead of two); `fn` gets them. They are dropped when the turn has to wait, so they
 * must be promises whose rejection is already handled.
 */
export async function inThreadOrder<T, R = undefined>(
  s: { storage: Pick<Storage, "sessions" | "events">; runtime: Pick<AgentRuntime, "limits"> },
  job: TurnJob,
  o: { signal: AbortSignal; logger: Logger; waitMs?: number; reads?: () => R },
  fn: (lockSignal: AbortSignal, reads: R) => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + (o.waitMs ?? WAIT_FOR_EARLIER_MS);
  // A claim older than a whole turn is a dead one (recovery takes it over): it holds nobody up.
  const withinMs = (s.runtime.limits.turnTimeoutMs ?? 300_000) + 60_000;
  let pauseMs = FIRST_PAUSE_MS;
  let told = false;
  const startsThread = job.messageTs === job.threadTs;
  for (;;) {
    type Outcome = { done: T } | { earlier: string[] };
    const outcome = await s.storage.sessions.withLock(
      job.sessionKey,
      async (lockSignal): Promise<Outcome> => {
        const reads = o.reads?.() as R;
        if (!startsThread && Date.now() < deadline) {
          const earlier = await s.storage.events.earlierUnfinished({
            sessionKey: job.sessionKey,
            messageTs: job.messageTs,
            eventId: job.eventId,
            withinMs,
          });
          if (earlier.length > 0) return { earlier };
        } else if (told) {
          o.logger.warn("the thread's earlier message has not started in time; this turn runs now");
        }
        return { done: await fn(lockSignal, reads) };
      },
    );
    if ("done" in outcome) return outcome.done;
    if (!told) {
      o.logger.info(
        { earlier: outcome.earlier },
        "waiting for the thread's earlier messages to be answered first",
      );
      told = true;
    }
    await sleep(pauseMs, undefined, { signal: o.signal });
    pauseMs = Math.min(pauseMs * 2, MAX_PAUSE_MS);
  }
}
