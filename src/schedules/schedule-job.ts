import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Clock } from "./clock.ts";
import { cronSlots } from "./cron-slots.ts";
import type { Schedule } from "./schedule-store.ts";

export interface ScheduleJobDeps {
  clock: Clock;
  logger: Logger;
  /** Missed slots older than this are not caught up. */
  catchUpWindowMs: number;
  /** How long after a missed slot its catch-up waits before claiming it (see `startScheduleJob`). */
  catchUpSettleMs: number;
  /** Claims one slot and, if this process won the claim, runs it; never rejects. */
  fire(schedule: Schedule, slot: Date, catchUp: boolean): Promise<void>;
  /** Keeps a piece of work for the scheduler's `stop()` to wait for; the work must never reject. */
  track(work: Promise<void>): void;
  /** Aborted when the whole scheduler stops. */
  stopping: AbortSignal;
}

export interface ScheduleJob {
  /** Ends the job's timer and drops a catch-up it has not claimed yet (the schedule changed or went). */
  cancel(): void;
}

/**
 * Runs one schedule from `clock.now()` on: every slot at or after that instant is fired when the clock
 * reaches it, under that slot's time. A process that wakes late (a blocked event loop, a suspended
 * machine) fires the latest slot due then, once.
 *
 * The slots before that instant passed while this process did not run the schedule. The latest of
 * them is caught up once, if it is later than `lastFire` (or than the schedule's creation, when it
 * never fired) and within `catchUpWindowMs`; older ones are not replayed. A replica that was running
 * at that slot claims it on time, so the catch-up waits until `catchUpSettleMs` after the slot before
 * claiming it: a slot another replica ran stays its own, and only a slot nobody ran is posted as a
 * catch-up. A catch-up still waiting when the scheduler stops is claimed at once.
 */
export function startScheduleJob(
  schedule: Schedule,
  lastFire: Date | undefined,
  deps: ScheduleJobDeps,
): ScheduleJob {
  const { clock } = deps;
  const slots = cronSlots(schedule.cron, schedule.timezone);
  const cancelled = new AbortController();
  const active = AbortSignal.any([cancelled.signal, deps.stopping]);
  const log = deps.logger.child({ scheduleId: schedule.id });

  const startedAt = clock.now();
  const missed = slots.before(startedAt);
  const since = lastFire ?? schedule.createdAt;
  if (missed && missed > since && startedAt.getTime() - missed.getTime() <= deps.catchUpWindowMs) {
    deps.track(catchUp(missed));
  }
  deps.track(runTimer(slots.atOrAfter(startedAt)));

  async function catchUp(slot: Date): Promise<void> {
    await clock.waitUntil(new Date(slot.getTime() + deps.catchUpSettleMs), active);
    if (cancelled.signal.aborted) return;
    await deps.fire(schedule, slot, true);
  }

  async function runTimer(first: Date | undefined): Promise<void> {
    try {
      let next = first;
      while (next) {
        await clock.waitUntil(next, active);
        if (active.aborted) return;
        const due = slots.atOrBefore(clock.now());
        const slot = due && due > next ? due : next;
        deps.track(deps.fire(schedule, slot, false));
        next = slots.after(slot);
      }
      log.info("schedule has no further slots");
    } catch (err) {
      log.error({ err: errorMessage(err) }, "schedule timer stopped");
    }
  }

  return { cancel: () => cancelled.abort() };
}
