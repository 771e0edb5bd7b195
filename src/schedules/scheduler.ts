import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { type Clock, systemClock } from "./clock.ts";
import { type ScheduleJob, startScheduleJob } from "./schedule-job.ts";
import type { Schedule, ScheduleStore } from "./schedule-store.ts";

export interface ScheduleFire {
  schedule: Schedule;
  /** The scheduled time (whole seconds), the same on every replica. */
  fireAt: Date;
  /** A fire missed while no scheduler was running, run late once at start-up; the post should say so. */
  catchUp: boolean;
}

export interface SchedulerOptions {
  store: Pick<ScheduleStore, "list" | "claimFire" | "finishFire" | "lastFireTimes">;
  /** Runs the turn and posts it; called once per fire across all replicas. A throw marks the fire failed. */
  onFire(fire: ScheduleFire): unknown;
  logger: Logger;
  /** The clock slots are read and waited on. Default the system clock. */
  clock?: Clock;
  /** Missed fires older than this are not caught up. Default 24 h. */
  catchUpWindowMs?: number;
  /**
   * A catch-up of a slot that passed moments before start-up waits until this long after the slot,
   * so a replica that was running then claims it first, on time. Default 5 s.
   */
  catchUpSettleMs?: number;
  /** Re-read the schedules this often, to see ones added or removed on another replica. Default 60 s; 0 = never. */
  refreshMs?: number;
}

export interface Scheduler {
  /** Loads the enabled schedules, runs at most one catch-up fire each, and starts their timers. */
  start(): Promise<void>;
  /** Stops every timer and waits for fires in progress to finish; a catch-up still waiting is claimed at once. */
  stop(): Promise<void>;
  /** Re-reads the schedules (call after add/remove); unchanged ones keep their timers. */
  reload(): Promise<void>;
}

interface Job {
  key: string;
  run: ScheduleJob;
}

const DAY_MS = 24 * 3600_000;
const SETTLE_MS = 5_000;

/**
 * Fires stored schedules. Every process that runs turns (role `all` or `worker`, see
 * `process-role.ts`) runs one. A schedule's slots are the instants its cron pattern names (croner, in
 * its time zone); each is fired when the clock reaches it and recorded under that slot's time. A fire
 * is claimed by inserting its (schedule, slot) row, and only the process whose insert went in calls
 * `onFire`, so each slot runs exactly once however many replicas run. Slots missed while no scheduler
 * ran are not replayed: a schedule seen for the first time gets at most one catch-up, the latest slot
 * it missed since its last fire, if that is within `catchUpWindowMs` (`schedule-job.ts`).
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, logger } = options;
  const clock = options.clock ?? systemClock;
  const catchUpWindowMs = options.catchUpWindowMs ?? DAY_MS;
  const catchUpSettleMs = options.catchUpSettleMs ?? SETTLE_MS;
  const refreshMs = options.refreshMs ?? 60_000;

  const jobs = new Map<number, Job>();
  const inFlight = new Set<Promise<void>>();
  let running = false;
  let stopping = new AbortController();
  let refreshTimer: NodeJS.Timeout | undefined;
  let syncing: Promise<void> = Promise.resolve();

  const track = (p: Promise<void>) => {
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };

  async function fire(schedule: Schedule, fireAt: Date, catchUp: boolean): Promise<void> {
    const log = logger.child({ scheduleId: schedule.id, fireAt: fireAt.toISOString(), catchUp });
    let claimed: boolean;
    try {
      claimed = await store.claimFire(schedule.id, fireAt);
    } catch (err) {
      // Without the claim there is no proof this fire runs once: skip it rather than risk two.
      log.error({ err: errorMessage(err) }, "schedule fire not claimed: database unavailable");
      return;
    }
    if (!claimed) {
      log.debug("schedule fire claimed by another replica");
      return;
    }
    log.info("schedule fire claimed");
    let status: "done" | "failed" = "done";
    try {
      await options.onFire({ schedule, fireAt, catchUp });
    } catch (err) {
      status = "failed";
      log.error({ err: errorMessage(err) }, "scheduled turn failed");
    }
    try {
      await store.finishFire(schedule.id, fireAt, status);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, "schedule fire status not saved");
    }
  }

  async function sync(): Promise<void> {
    const wanted = new Map((await store.list({ enabledOnly: true })).map((s) => [s.id, s]));
    for (const [id, job] of jobs) {
      const schedule = wanted.get(id);
      if (!schedule || jobKey(schedule) !== job.key) {
        job.run.cancel();
        jobs.delete(id);
      }
    }
    const fresh = [...wanted.values()].filter((s) => !jobs.has(s.id));
    if (fresh.length === 0 || !running) return;
    const lastFires = await store.lastFireTimes();
    if (!running) return;
    const deps = {
      clock,
      logger,
      catchUpWindowMs,
      catchUpSettleMs,
      fire,
      track,
      stopping: stopping.signal,
    };
    for (const schedule of fresh) {
      try {
        const run = startScheduleJob(schedule, lastFires.get(schedule.id), deps);
        jobs.set(schedule.id, { key: jobKey(schedule), run });
      } catch (err) {
        // Checked when added; a pattern croner later refuses must not stop the other schedules.
        logger.error({ scheduleId: schedule.id, err: errorMessage(err) }, "schedule not started");
      }
    }
  }

  function reload(): Promise<void> {
    // One sync at a time: two overlapping ones could both start a job for the same schedule.
    const next = syncing.then(sync);
    syncing = next.catch(() => undefined);
    return next;
  }

  return {
    async start() {
      if (running) return;
      running = true;
      stopping = new AbortController();
      await reload();
      if (refreshMs > 0) {
        refreshTimer = setInterval(() => {
          reload().catch((err) => logger.warn({ err: errorMessage(err) }, "schedules not reloaded"));
        }, refreshMs);
      }
    },

    async stop() {
      running = false;
      clearInterval(refreshTimer);
      // Every job's timer ends; a catch-up still waiting to claim is claimed now (see schedule-job.ts).
      stopping.abort();
      await syncing;
      jobs.clear();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    reload,
  };
}

/** What a job was built from: a schedule changed in the database gets a new job. */
function jobKey(s: Schedule): string {
  return JSON.stringify([s.teamId, s.cron, s.timezone, s.channelId, s.prompt, s.ownerId]);
}
