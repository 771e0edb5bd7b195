import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { scheduledPostHeader } from "../../src/schedules/format-schedules.ts";
import {
  createScheduleStore,
  type Schedule,
  type ScheduleStore,
} from "../../src/schedules/schedule-store.ts";
import { createScheduler } from "../../src/schedules/scheduler.ts";
import { type Database, openDatabase } from "../../src/store/db.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";
import { type ManualClock, manualClock } from "./manual-clock.ts";

/**
 * Schedules on a clock the test moves: each slot fires once, when the clock reaches it, recorded
 * under the slot; a restart neither repeats a slot nor catches up one that fired; a slot that passed
 * while no scheduler ran is caught up once, with the catch-up wording. Every scheduler instance is a
 * real one on the same database (its own connection on Postgres, as a replica has). Stopping an
 * instance waits for everything it decided to run, so after the last stop the lists are complete.
 */

const base = { channelId: "C0OPS1234", prompt: "summarize urgent open tickets", ownerId: "UADMIN1" };

interface SeenFire {
  replica: string;
  scheduleId: number;
  slot: string;
  catchUp: boolean;
  header: string;
}

interface SeenClaim {
  replica: string;
  scheduleId: number;
  slot: string;
  won: boolean;
}

describe.each(DRIVERS)("scheduler slots on %s", (kind) => {
  let t: TestStore;
  let store: ScheduleStore;

  beforeAll(async () => {
    t = await openTestStore(kind);
    store = createScheduleStore({ db: t.handle.db });
  });
  afterAll(async () => {
    await t.cleanup();
  });

  /** Scheduler instances on one database and one manual clock; what each claims and fires is recorded. */
  function cluster(clock: ManualClock) {
    const fires: SeenFire[] = [];
    const claims: SeenClaim[] = [];

    async function connect(): Promise<{ db: Database; close(): Promise<void> }> {
      if (!t.url) return { db: t.handle.db, close: async () => {} };
      const handle = await openDatabase({ databaseUrl: t.url, dataDir: "", logger: silentLogger() });
      return { db: handle.db, close: () => handle.close() };
    }

    return {
      fires,
      claims,
      /** Starts a scheduler as `replica` at the clock's current time. */
      async start(replica: string) {
        const conn = await connect();
        const own = createScheduleStore({ db: conn.db });
        const scheduler = createScheduler({
          store: {
            ...own,
            async claimFire(scheduleId, fireAt) {
              const won = await own.claimFire(scheduleId, fireAt);
              claims.push({ replica, scheduleId, slot: fireAt.toISOString(), won });
              return won;
            },
          },
          logger: silentLogger(),
          clock,
          refreshMs: 0,
          onFire: (fire) => {
            fires.push({
              replica,
              scheduleId: fire.schedule.id,
              slot: fire.fireAt.toISOString(),
              catchUp: fire.catchUp,
              header: scheduledPostHeader(fire),
            });
          },
        });
        await scheduler.start();
        return {
          async stop() {
            try {
              await scheduler.stop();
            } finally {
              await conn.close();
            }
          },
        };
      },
      /** The fires of one schedule, in order: "<slot>" or "<slot> catch-up". */
      firesOf(s: Schedule): string[] {
        return fires
          .filter((f) => f.scheduleId === s.id)
          .map((f) => (f.catchUp ? `${f.slot} catch-up` : f.slot));
      },
      claimsOf(s: Schedule, slot: string): SeenClaim[] {
        return claims.filter((c) => c.scheduleId === s.id && c.slot === slot);
      },
    };
  }

  /** The slots recorded for a schedule (the claim rows), all finished. */
  async function recorded(s: Schedule): Promise<string[]> {
    const rows = await execSql<{ fire_at: Date | string; status: string }>(
      t.handle.db,
      `SELECT fire_at, status FROM schedule_fires WHERE schedule_id = ${s.id} ORDER BY fire_at`,
    );
    expect(rows.map((r) => r.status).filter((status) => status !== "done")).toEqual([]);
    return rows.map((r) => new Date(r.fire_at).toISOString());
  }

  /** A fire that ran before the test's instances started (the schedule's history). */
  async function ranBefore(s: Schedule, slot: string) {
    expect(await store.claimFire(s.id, new Date(slot))).toBe(true);
    await store.finishFire(s.id, new Date(slot), "done");
  }

  /** Waits until `timers` timers wait for `slot`, i.e. for the clock to reach it. */
  async function armedFor(clock: ManualClock, slot: string, timers = 1) {
    await waitFor(
      () => clock.pending().filter((p) => p === slot).length >= timers,
      30_000,
      `${timers} timer(s) armed for ${slot}`,
    );
  }

  /** Waits until the slot's fire has been claimed, run and recorded. */
  async function firedAt(c: ReturnType<typeof cluster>, s: Schedule, slot: string) {
    await waitFor(
      async () =>
        c.fires.some((f) => f.scheduleId === s.id && f.slot === slot) && (await recorded(s)).includes(slot),
      30_000,
      `the ${slot} fire of schedule ${s.id}`,
    );
  }

  async function clear() {
    await execSql(t.handle.db, "DELETE FROM schedules");
  }

  it("a daily schedule fires at its slot, recorded under it; a restart right after a fire repeats nothing and the next day still fires", async () => {
    await clear();
    const clock = manualClock("2027-03-01T08:59:30.000Z"); // a Monday
    const c = cluster(clock);
    const daily = await store.add({
      ...base,
      cron: "0 9 * * *",
      createdAt: new Date("2027-02-20T10:00:00Z"),
    });
    await ranBefore(daily, "2027-02-28T09:00:00.000Z");

    const first = await c.start("a");
    try {
      // Not before its slot: a millisecond early, the timer still waits for 09:00 and nothing is claimed.
      clock.set("2027-03-01T08:59:59.999Z");
      await armedFor(clock, "2027-03-01T09:00:00.000Z");
      expect(c.claims).toEqual([]);
      clock.set("2027-03-01T09:00:00.000Z");
      await firedAt(c, daily, "2027-03-01T09:00:00.000Z");
      clock.set("2027-03-01T09:00:00.400Z");
    } finally {
      await first.stop();
    }

    // Restarted right after the fire: no catch-up, and the timer waits for tomorrow's slot.
    clock.set("2027-03-01T09:00:02.000Z");
    const second = await c.start("a2");
    try {
      await armedFor(clock, "2027-03-02T09:00:00.000Z");
      clock.set("2027-03-02T09:00:00.000Z");
      await firedAt(c, daily, "2027-03-02T09:00:00.000Z");
    } finally {
      await second.stop();
    }

    expect(c.firesOf(daily)).toEqual(["2027-03-01T09:00:00.000Z", "2027-03-02T09:00:00.000Z"]);
    expect(c.fires.map((f) => f.header)).toEqual([
      `_Schedule ${daily.id} — 2027-03-01 09:00 UTC_`,
      `_Schedule ${daily.id} — 2027-03-02 09:00 UTC_`,
    ]);
    expect(await recorded(daily)).toEqual([
      "2027-02-28T09:00:00.000Z",
      "2027-03-01T09:00:00.000Z",
      "2027-03-02T09:00:00.000Z",
    ]);
  });

  it("a weekday schedule: a restart just before a slot fires it on time; a slot passed while down is caught up once", async () => {
    await clear();
    const clock = manualClock("2027-03-05T08:00:00.000Z"); // a Friday
    const c = cluster(clock);
    const weekdays = await store.add({
      ...base,
      cron: "0 9 * * 1-5",
      timezone: "Europe/Berlin",
      createdAt: new Date("2027-02-01T00:00:00Z"),
    });
    // 09:00 in Berlin is 08:00 UTC in March (before the clocks change).
    await ranBefore(weekdays, "2027-03-04T08:00:00.000Z");

    const friday = await c.start("a");
    try {
      clock.set("2027-03-05T08:00:00.000Z");
      await firedAt(c, weekdays, "2027-03-05T08:00:00.000Z");
      clock.set("2027-03-05T16:00:00.000Z");
    } finally {
      await friday.stop();
    }

    // Down over the weekend (no slots), back just before Monday's slot: no catch-up, Monday fires on time.
    clock.set("2027-03-08T07:59:50.000Z");
    const monday = await c.start("b");
    try {
      await armedFor(clock, "2027-03-08T08:00:00.000Z");
      clock.set("2027-03-08T08:00:00.000Z");
      await firedAt(c, weekdays, "2027-03-08T08:00:00.000Z");
      clock.set("2027-03-08T10:00:00.000Z");
    } finally {
      await monday.stop();
    }

    // Down over Tuesday's slot: caught up once when back, with the catch-up wording; Wednesday fires on time.
    clock.set("2027-03-09T11:30:00.000Z");
    const tuesday = await c.start("c");
    try {
      await firedAt(c, weekdays, "2027-03-09T08:00:00.000Z");
      await armedFor(clock, "2027-03-10T08:00:00.000Z");
      clock.set("2027-03-10T08:00:00.000Z");
      await firedAt(c, weekdays, "2027-03-10T08:00:00.000Z");
    } finally {
      await tuesday.stop();
    }

    expect(c.firesOf(weekdays)).toEqual([
      "2027-03-05T08:00:00.000Z",
      "2027-03-08T08:00:00.000Z",
      "2027-03-09T08:00:00.000Z catch-up",
      "2027-03-10T08:00:00.000Z",
    ]);
    const caughtUp = c.fires.find((f) => f.catchUp)!;
    expect(caughtUp.header).toBe(
      `_Schedule ${weekdays.id} — catching up on the 2027-03-09 09:00 Europe/Berlin run, missed while Hermes was down._`,
    );
    expect(c.fires.filter((f) => !f.catchUp).every((f) => !f.header.includes("catching up"))).toBe(true);
    expect(await recorded(weekdays)).toEqual([
      "2027-03-04T08:00:00.000Z",
      "2027-03-05T08:00:00.000Z",
      "2027-03-08T08:00:00.000Z",
      "2027-03-09T08:00:00.000Z",
      "2027-03-10T08:00:00.000Z",
    ]);
  });

  it("an every-minute schedule fires each minute once; down over several minutes, only the latest is caught up", async () => {
    await clear();
    const clock = manualClock("2027-03-01T12:00:30.000Z");
    const c = cluster(clock);
    const minutely = await store.add({
      ...base,
      cron: "* * * * *",
      createdAt: new Date("2027-03-01T11:00:00Z"),
    });
    await ranBefore(minutely, "2027-03-01T12:00:00.000Z");

    const first = await c.start("a");
    try {
      for (const minute of ["12:01", "12:02", "12:03"]) {
        const slot = `2027-03-01T${minute}:00.000Z`;
        await armedFor(clock, slot);
        clock.set(slot);
        await firedAt(c, minutely, slot);
      }
      clock.set("2027-03-01T12:03:00.500Z");
    } finally {
      await first.stop();
    }

    // Restarted within the same minute: nothing to catch up; 12:04 fires.
    clock.set("2027-03-01T12:03:10.000Z");
    const second = await c.start("b");
    try {
      await armedFor(clock, "2027-03-01T12:04:00.000Z");
      clock.set("2027-03-01T12:04:00.000Z");
      await firedAt(c, minutely, "2027-03-01T12:04:00.000Z");
      clock.set("2027-03-01T12:04:20.000Z");
    } finally {
      await second.stop();
    }

    // Down over 12:05 and 12:06: one catch-up, the latest (12:06); then 12:07 on time.
    clock.set("2027-03-01T12:06:30.000Z");
    const third = await c.start("c");
    try {
      await firedAt(c, minutely, "2027-03-01T12:06:00.000Z");
      await armedFor(clock, "2027-03-01T12:07:00.000Z");
      clock.set("2027-03-01T12:07:00.000Z");
      await firedAt(c, minutely, "2027-03-01T12:07:00.000Z");
    } finally {
      await third.stop();
    }

    expect(c.firesOf(minutely)).toEqual([
      "2027-03-01T12:01:00.000Z",
      "2027-03-01T12:02:00.000Z",
      "2027-03-01T12:03:00.000Z",
      "2027-03-01T12:04:00.000Z",
      "2027-03-01T12:06:00.000Z catch-up",
      "2027-03-01T12:07:00.000Z",
    ]);
    expect(await recorded(minutely)).toEqual(
      ["12:00", "12:01", "12:02", "12:03", "12:04", "12:06", "12:07"].map((m) => `2027-03-01T${m}:00.000Z`),
    );
  });

  it("on the system clock, a slot is recorded under its own time, and a restart right after it fires nothing", async () => {
    await clear();
    // One slot a year, two whole seconds ahead: the fire must carry this instant, not the slot before
    // it (a year earlier), and a restart right after it must not take it for a missed one.
    const slot = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000);
    const pattern = `${slot.getUTCSeconds()} ${slot.getUTCMinutes()} ${slot.getUTCHours()} ${slot.getUTCDate()} ${slot.getUTCMonth() + 1} *`;
    const yearly = await store.add({ ...base, cron: pattern });
    const fires: Array<{ slot: string; catchUp: boolean; at: number }> = [];
    const make = () =>
      createScheduler({
        store,
        logger: silentLogger(),
        refreshMs: 0,
        onFire: (fire) => {
          fires.push({ slot: fire.fireAt.toISOString(), catchUp: fire.catchUp, at: Date.now() });
        },
      });

    const first = make();
    await first.start();
    const startedBeforeSlot = Date.now() < slot.getTime();
    try {
      await waitFor(() => fires.length >= 1, 30_000, "the yearly slot's fire");
    } finally {
      await first.stop();
    }
    const second = make();
    await second.start();
    await second.stop(); // waits for anything it decided to run

    expect(fires.map((f) => f.slot)).toEqual([slot.toISOString()]);
    expect(fires[0]!.at).toBeGreaterThanOrEqual(slot.getTime()); // not before its slot
    // On time when the scheduler was up before the slot (a start slowed past it makes it a catch-up).
    if (startedBeforeSlot) expect(fires[0]!.catchUp).toBe(false);
    expect(await recorded(yearly)).toEqual([slot.toISOString()]);
  });

  it("two replicas started in different seconds fire each slot exactly once, and a replica restarted at a slot makes no false catch-up", async () => {
    await clear();
    const clock = manualClock("2027-03-01T08:58:10.000Z");
    const c = cluster(clock);
    const daily = await store.add({
      ...base,
      cron: "0 9 * * 1-5",
      createdAt: new Date("2027-02-01T00:00:00Z"),
    });
    const minutely = await store.add({
      ...base,
      cron: "* * * * *",
      createdAt: new Date("2027-03-01T08:00:00Z"),
    });
    await ranBefore(daily, "2027-02-26T09:00:00.000Z"); // the Friday before
    await ranBefore(minutely, "2027-03-01T08:58:00.000Z");

    const a = await c.start("a");
    let b: Awaited<ReturnType<typeof c.start>> | undefined;
    try {
      clock.set("2027-03-01T08:58:41.500Z");
      b = await c.start("b");
      // Both replicas try every slot; one claim wins each.
      for (const slot of [
        "2027-03-01T08:59:00.000Z",
        "2027-03-01T09:00:00.000Z",
        "2027-03-01T09:01:00.000Z",
      ]) {
        await armedFor(clock, slot, 2);
        clock.set(slot);
        await waitFor(() => c.claimsOf(minutely, slot).length === 2, 30_000, `both claims of ${slot}`);
        expect(c.claimsOf(minutely, slot).filter((x) => x.won)).toHaveLength(1);
        await firedAt(c, minutely, slot);
      }
      await waitFor(() => c.claimsOf(daily, "2027-03-01T09:00:00.000Z").length === 2, 30_000, "daily claims");
      expect(c.claimsOf(daily, "2027-03-01T09:00:00.000Z").filter((x) => x.won)).toHaveLength(1);
      await firedAt(c, daily, "2027-03-01T09:00:00.000Z");

      // b restarts right after a slot replica a has fired: nothing to catch up.
      await b.stop();
      b = undefined;
      clock.set("2027-03-01T09:02:00.000Z");
      await firedAt(c, minutely, "2027-03-01T09:02:00.000Z");
      clock.set("2027-03-01T09:02:00.700Z");
      b = await c.start("b2");
      await armedFor(clock, "2027-03-01T09:03:00.000Z", 2);

      // b restarts at the very moment of a slot, before a's claim of it may have landed: b's catch-up
      // (if it sees one to make) waits a few seconds, finds the slot claimed, and a's on-time fire is
      // the only one.
      await b.stop();
      b = undefined;
      clock.set("2027-03-01T09:03:00.200Z");
      b = await c.start("b3");
      await firedAt(c, minutely, "2027-03-01T09:03:00.000Z");
      clock.set("2027-03-01T09:03:06.000Z");
    } finally {
      await b?.stop();
      await a.stop();
    }

    // Both down over 09:05; both back, in different seconds: the missed slot is caught up once in total.
    clock.set("2027-03-01T09:05:40.000Z");
    const a2 = await c.start("a2");
    let b4: Awaited<ReturnType<typeof c.start>> | undefined;
    try {
      clock.set("2027-03-01T09:05:41.300Z");
      b4 = await c.start("b4");
      await firedAt(c, minutely, "2027-03-01T09:05:00.000Z");
    } finally {
      await b4?.stop();
      await a2.stop();
    }

    expect(c.firesOf(minutely)).toEqual([
      "2027-03-01T08:59:00.000Z",
      "2027-03-01T09:00:00.000Z",
      "2027-03-01T09:01:00.000Z",
      "2027-03-01T09:02:00.000Z",
      "2027-03-01T09:03:00.000Z",
      "2027-03-01T09:05:00.000Z catch-up",
    ]);
    expect(c.firesOf(daily)).toEqual(["2027-03-01T09:00:00.000Z"]);
    expect(c.fires.filter((f) => f.catchUp)).toHaveLength(1);
    expect(await recorded(minutely)).toEqual(
      ["08:58", "08:59", "09:00", "09:01", "09:02", "09:03", "09:05"].map((m) => `2027-03-01T${m}:00.000Z`),
    );
    expect(await recorded(daily)).toEqual(["2027-02-26T09:00:00.000Z", "2027-03-01T09:00:00.000Z"]);
  });
});
