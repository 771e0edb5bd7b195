import { setTimeout as sleep } from "node:timers/promises";
import { Cron } from "croner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { createScheduleStore, type ScheduleStore } from "../../src/schedules/schedule-store.ts";
import { createScheduler, type ScheduleFire, type Scheduler } from "../../src/schedules/scheduler.ts";
import { type Database, openDatabase } from "../../src/store/db.ts";
import { waitFor } from "../helpers/hermes-harness.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const DAY = 24 * 3600_000;
const base = { channelId: "C0OPS1234", prompt: "digest", ownerId: "UADMIN1" };

describe.each(DRIVERS)("scheduler on %s", (kind) => {
  let t: TestStore;
  /** A second connection to the same database, as another replica would have (PGlite: the same one). */
  let replicaDb: Database;
  let closeReplica: () => Promise<void>;
  let store: ScheduleStore;

  beforeAll(async () => {
    t = await openTestStore(kind);
    store = createScheduleStore({ db: t.handle.db });
    if (t.url) {
      const handle = await openDatabase({ databaseUrl: t.url, dataDir: "", logger: silentLogger() });
      replicaDb = handle.db;
      closeReplica = () => handle.close();
    } else {
      replicaDb = t.handle.db;
      closeReplica = async () => {};
    }
  });
  afterAll(async () => {
    await closeReplica();
    await t.cleanup();
  });

  /** Two schedulers (replicas) on the same database; every onFire call from either is recorded. */
  function twoReplicas(onFire?: (fire: ScheduleFire) => unknown) {
    const fires: Array<ScheduleFire & { replica: string }> = [];
    const make = (replica: string, db: Database) =>
      createScheduler({
        store: createScheduleStore({ db }),
        logger: silentLogger(),
        refreshMs: 0,
        onFire: (fire) => {
          fires.push({ ...fire, replica });
          return onFire?.(fire);
        },
      });
    const schedulers: Scheduler[] = [make("a", t.handle.db), make("b", replicaDb)];
    return {
      fires,
      start: () => Promise.all(schedulers.map((s) => s.start())),
      reload: () => Promise.all(schedulers.map((s) => s.reload())),
      stop: () => Promise.all(schedulers.map((s) => s.stop())),
    };
  }

  async function clear() {
    await execSql(t.handle.db, "DELETE FROM schedules");
  }

  it("runs each fire exactly once with two schedulers on the same database", async () => {
    await clear();
    const s = await store.add({ ...base, cron: "* * * * * *" });
    const replicas = twoReplicas();
    await replicas.start();
    const started = Date.now();
    // Two fires of a per-second schedule: waited for, not slept for (timers run late on a busy machine).
    await waitFor(() => replicas.fires.filter((f) => !f.catchUp).length >= 2, 30_000, "two fires");
    await replicas.stop();

    const times = replicas.fires.map((f) => f.fireAt.toISOString());
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(new Set(times).size).toBe(times.length); // no fire twice
    for (const f of replicas.fires) {
      expect(f.fireAt.getMilliseconds()).toBe(0);
      expect(f.schedule.id).toBe(s.id);
    }
    // A whole second that began after the schedule was made but before a replica's timer ran (a slow
    // start on a busy machine) was missed by that replica: it runs it as its one catch-up, if no
    // other replica claimed that second first, and it comes before that replica's regular fires.
    // The replicas start one after the other, so on a busy machine each may see a different missed
    // second: at most one catch-up per replica, never one before the schedule existed, and none at
    // all when no whole second began between the schedule's creation and both replicas' start.
    const secondMissed = Math.floor(started / 1000) * 1000 > s.createdAt.getTime();
    if (!secondMissed) expect(replicas.fires.filter((f) => f.catchUp)).toEqual([]);
    for (const replica of ["a", "b"]) {
      const own = replicas.fires.filter((f) => f.replica === replica);
      const catchUps = own.filter((f) => f.catchUp);
      expect(catchUps.length).toBeLessThanOrEqual(1);
      for (const c of catchUps) {
        expect(c.fireAt.getTime()).toBeGreaterThan(s.createdAt.getTime());
        expect(c.fireAt.getTime()).toBeLessThanOrEqual(started);
        for (const f of own) if (!f.catchUp) expect(f.fireAt > c.fireAt).toBe(true);
      }
    }
    const rows = await execSql<{ fire_at: Date | string; status: string }>(
      t.handle.db,
      `SELECT fire_at, status FROM schedule_fires WHERE schedule_id = ${s.id} ORDER BY fire_at`,
    );
    expect(rows.map((r) => new Date(r.fire_at).toISOString())).toEqual([...times].sort());
    expect(rows.every((r) => r.status === "done")).toBe(true);
  });

  it("after 3 days down, runs one catch-up fire: the latest missed one", async () => {
    await clear();
    const threeDaysAgo = new Date(Date.now() - 3 * DAY);
    const s = await store.add({
      ...base,
      cron: "* * * * *",
      createdAt: new Date(threeDaysAgo.getTime() - DAY),
    });
    await store.claimFire(s.id, new Date(Math.floor(threeDaysAgo.getTime() / 60_000) * 60_000));

    const replicas = twoReplicas();
    const startedAt = new Date();
    await replicas.start();
    await sleep(300);
    await replicas.stop();

    const catchUps = replicas.fires.filter((f) => f.catchUp);
    expect(catchUps).toHaveLength(1);
    // The latest minute boundary before start-up (or the one just after, if a minute turned meanwhile).
    const latest = new Cron("* * * * *", { paused: true }).previousRuns(1, startedAt)[0] as Date;
    expect([latest.getTime(), latest.getTime() + 60_000]).toContain(catchUps[0]?.fireAt.getTime());
    // nothing else from those three days was replayed
    expect(replicas.fires.every((f) => f.catchUp || f.fireAt > startedAt)).toBe(true);
  });

  it("does not catch up a fire older than the window, nor one before the schedule existed", async () => {
    await clear();
    const fourDaysAgo = new Date(Date.now() - 4 * DAY);
    const yearly = `${fourDaysAgo.getUTCMinutes()} ${fourDaysAgo.getUTCHours()} ${fourDaysAgo.getUTCDate()} ${fourDaysAgo.getUTCMonth() + 1} *`;
    const old = await store.add({ ...base, cron: yearly, createdAt: new Date(Date.now() - 30 * DAY) });
    const fresh = await store.add({ ...base, cron: "* * * * *" }); // its previous minute predates it

    const replicas = twoReplicas();
    await replicas.start();
    await sleep(300);
    await replicas.stop();
    expect(replicas.fires.filter((f) => f.schedule.id === old.id)).toEqual([]);
    // Only a minute that turned after it was added (while no scheduler ran) may be caught up.
    for (const f of replicas.fires.filter((f) => f.schedule.id === fresh.id)) {
      expect(f.fireAt.getTime()).toBeGreaterThan(fresh.createdAt.getTime());
    }
  });

  it("reload starts added schedules and stops removed ones; a failed turn is marked failed", async () => {
    await clear();
    const replicas = twoReplicas(() => {
      throw new Error("model down");
    });
    await replicas.start();
    const s = await store.add({ ...base, cron: "* * * * * *" });
    await replicas.reload();
    await waitFor(() => replicas.fires.length >= 1, 30_000, "a fire of the added schedule");

    await store.remove(s.id);
    await replicas.reload();
    await sleep(100); // a fire claimed just before the removal may still be finishing
    const afterRemoval = replicas.fires.length;
    await sleep(1200);
    expect(replicas.fires.length).toBe(afterRemoval);
    await replicas.stop();

    const s2 = await store.add({ ...base, cron: "* * * * * *" });
    const one = twoReplicas(() => {
      throw new Error("model down");
    });
    await one.start();
    await waitFor(() => one.fires.length >= 1, 30_000, "a fire");
    await one.stop();
    const rows = await execSql(t.handle.db, `SELECT status FROM schedule_fires WHERE schedule_id = ${s2.id}`);
    expect(rows.length).toBeGreaterThanOrEqual(1);
    expect(rows.every((r) => r.status === "failed")).toBe(true);
  });
});
