import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HermesError } from "../../src/core/errors.ts";
import { createScheduleStore, type ScheduleStore } from "../../src/schedules/schedule-store.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

describe.each(DRIVERS)("schedule store on %s", (kind) => {
  let t: TestStore;
  let store: ScheduleStore;
  beforeAll(async () => {
    t = await openTestStore(kind);
    store = createScheduleStore({ db: t.handle.db });
  });
  afterAll(() => t.cleanup());

  const input = { cron: "0 9 * * 1-5", channelId: "C0OPS1234", prompt: "summarize", ownerId: "UADMIN1" };

  it("adds, lists, gets and removes", async () => {
    const a = await store.add(input);
    const b = await store.add({
      ...input,
      cron: " 30 8 * * * ",
      timezone: "Europe/Berlin",
      prompt: " digest ",
    });
    expect(a).toMatchObject({ ...input, timezone: "UTC", enabled: true });
    expect(a.createdAt).toBeInstanceOf(Date);
    expect(b).toMatchObject({ cron: "30 8 * * *", timezone: "Europe/Berlin", prompt: "digest" });
    expect((await store.list()).map((s) => s.id)).toEqual([a.id, b.id]);
    expect(await store.get(b.id)).toEqual(b);

    await execSql(t.handle.db, `UPDATE schedules SET enabled = false WHERE id = ${b.id}`);
    expect((await store.list({ enabledOnly: true })).map((s) => s.id)).toEqual([a.id]);

    expect(await store.remove(a.id)).toBe(true);
    expect(await store.remove(a.id)).toBe(false);
    expect(await store.get(a.id)).toBeUndefined();
  });

  it("refuses a bad cron pattern or time zone", async () => {
    const bad = (extra: object) => store.add({ ...input, ...extra }).catch((e: unknown) => e);
    const cron = await bad({ cron: "0 9 * *" });
    expect(cron).toBeInstanceOf(HermesError);
    expect((cron as HermesError).code).toBe("bad_request");
    expect((cron as HermesError).message).toMatch(/^"0 9 \* \*" is not a valid cron pattern/);
    expect(((await bad({ timezone: "Mars/Base" })) as Error).message).toMatch(/not a time zone/);
    expect(((await bad({ prompt: "  " })) as Error).message).toBe("The prompt is empty.");
  });

  it("claims a fire once; not for a removed or disabled schedule", async () => {
    const s = await store.add(input);
    const at = new Date("2030-01-07T09:00:00.000Z");
    const claims = await Promise.all([1, 2, 3, 4].map(() => store.claimFire(s.id, at)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.claimFire(s.id, new Date(at.getTime() + 60_000))).toBe(true);
    expect((await store.lastFireTimes()).get(s.id)).toEqual(new Date(at.getTime() + 60_000));

    await store.finishFire(s.id, at, "done");
    const rows = await execSql(t.handle.db, `SELECT status FROM schedule_fires WHERE schedule_id = ${s.id}`);
    expect(rows.map((r) => r.status).sort()).toEqual(["claimed", "done"]);

    const off = await store.add(input);
    await execSql(t.handle.db, `UPDATE schedules SET enabled = false WHERE id = ${off.id}`);
    expect(await store.claimFire(off.id, at)).toBe(false);

    await store.remove(s.id);
    expect(await store.claimFire(s.id, new Date(at.getTime() + 120_000))).toBe(false);
    const left = await execSql(
      t.handle.db,
      `SELECT count(*)::int AS n FROM schedule_fires WHERE schedule_id = ${s.id}`,
    );
    expect(left[0]?.n).toBe(0); // fire history goes with the schedule
  });
});
