import { Cron } from "croner";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Schedule, ScheduleStore } from "../store/schedule-store.ts";

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
  /** The clock for catch-up decisions (croner's timers use the real one). */
  now?: () => Date;
  /** Missed fires older than this are not caught up. Default 24 h. */
  catchUpWindowMs?: number;
  /** Re-read the schedules this often, to see ones added or removed on another replica. Default 60 s; 0 = never. */
  refreshMs?: number;
}

export interface Scheduler {
  /** Loads the enabled schedules, runs at most one catch-up fire each, and starts their timers. */
  start(): Promise<void>;
  /** Stops every timer and waits for fires in progress to finish. */
  stop(): Promise<void>;
  /** Re-reads the schedules (call after add/remove); unchanged ones keep their timers. */
  reload(): Promise<void>;
}

interface Job {
  key: string;
  cron: Cron;
}

const DAY_MS = 24 * 3600_000;

/**
 * Fires stored schedules with croner. Every process that runs turns (role `all` or `worker`, see
 * `process-role.ts`) runs one; a fire is claimed by inserting its (schedule, fire time) row, and only
 * the process whose insert went in calls `onFire`, so each fire runs exactly once. Fires missed while down are not replayed: a schedule seen for the first time
 * gets at most one catch-up, the latest fire it missed, if that is within `catchUpWindowMs`.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, logger } = options;
  const now = options.now ?? (() => new Date());
  const catchUpWindowMs = options.catchUpWindowMs ?? DAY_MS;
  const refreshMs = options.refreshMs ?? 60_000;

  const jobs = new Map<number, Job>();
  const inFlight = new Set<Promise<void>>();
  let running = false;
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

  function startJob(schedule: Schedule, lastFire: Date | undefined): Job {
    const cron = new Cron(
      schedule.cron,
      { timezone: schedule.timezone, catch: (err) => logger.error({ err: errorMessage(err) }, "cron error") },
      (self: Cron) => {
        if (!running) return;
        // croner passes no target time; the latest pattern time at or before the trigger is it,
        // whole seconds, so every replica claims the same row.
        const fireAt = self.previousRuns(1, self.currentRun() ?? new Date())[0];
        if (fireAt) track(fire(schedule, fireAt, false));
      },
    );
    // The catch-up candidate is the run just before the timer's first one: no gap, and an overlap
    // with the first regular fire is settled by the claim.
    const at = now();
    const first = cron.nextRun(at);
    const missed = cron.previousRuns(1, first ?? at)[0];
    const since = lastFire ?? schedule.createdAt;
    if (missed && missed > since && at.getTime() - missed.getTime() <= catchUpWindowMs) {
      track(fire(schedule, missed, true));
    }
    return { key: jobKey(schedule), cron };
  }

  async function sync(): Promise<void> {
    const wanted = new Map((await store.list({ enabledOnly: true })).map((s) => [s.id, s]));
    for (const [id, job] of jobs) {
      const schedule = wanted.get(id);
      if (!schedule || jobKey(schedule) !== job.key) {
        job.cron.stop();
        jobs.delete(id);
      }
    }
    const fresh = [...wanted.values()].filter((s) => !jobs.has(s.id));
    if (fresh.length === 0 || !running) return;
    const lastFires = await store.lastFireTimes();
    for (const schedule of fresh) {
      try {
        jobs.set(schedule.id, startJob(schedule, lastFires.get(schedule.id)));
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
      await syncing;
      for (const job of jobs.values()) job.cron.stop();
      jobs.clear();
      await Promise.allSettled([...inFlight]);
    },

    reload,
  };
}

/** What a job was built from: a schedule changed in the database gets a new job. */
function jobKey(s: Schedule): string {
  return JSON.stringify([s.cron, s.timezone, s.channelId, s.prompt, s.ownerId]);
}
