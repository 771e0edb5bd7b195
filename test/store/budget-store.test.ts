import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type AuditLog, createAuditLog } from "../../src/store/audit.ts";
import { type BudgetStore, createBudgetStore } from "../../src/store/budget-store.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

/** Sets a limit the way `/hermes budget` does: with its `budget.changed` audit row. */
function setLimit(
  budgets: BudgetStore,
  change: { scope: "user" | "channel"; id: string; tokensPerDay: number | null; by: string },
) {
  return budgets.setLimit(change, {
    action: "budget.changed",
    tool: "/hermes",
    userId: change.by,
    actorId: change.by,
    args: { scope: change.scope, id: change.id, tokens_per_day: change.tokensPerDay },
  });
}

const DAY = "2026-12-01";
let clock = new Date(`${DAY}T10:00:00Z`);

/** A scope's row today, as the table holds it. */
async function row(store: TestStore, scope: string, id: string, day = DAY) {
  const [r] = await execSql<{ used: string; reserved: string }>(
    store.handle.db,
    `SELECT used, reserved FROM token_usage WHERE scope = '${scope}' AND scope_id = '${id}' AND day = '${day}'`,
  );
  return r ? { used: Number(r.used), reserved: Number(r.reserved) } : undefined;
}

describe.each(["postgres", "pglite"] as const)("budget store on %s", (kind) => {
  let store: TestStore;
  let budgets: BudgetStore;
  beforeAll(async () => {
    store = await openTestStore(kind);
    budgets = createBudgetStore({
      db: store.handle.db,
      audit: createAuditLog({ db: store.handle.db }),
      defaults: { userTokensPerDay: 1000, channelTokensPerDay: 0 },
      now: () => clock,
    });
  });
  afterAll(() => store?.cleanup());

  it("reserves in the user's and the channel's scope, and settles with the real usage", async () => {
    const held = await budgets.reserve({ userId: "U0A", channelId: "C0A" }, 600);
    expect(held.ok).toBe(true);
    expect(await row(store, "user", "U0A")).toEqual({ used: 0, reserved: 600 });
    expect(await row(store, "channel", "C0A")).toEqual({ used: 0, reserved: 600 });
    if (!held.ok) return;
    await budgets.settle(held.reservation, 123);
    expect(await row(store, "user", "U0A")).toEqual({ used: 123, reserved: 0 });
    expect(await row(store, "channel", "C0A")).toEqual({ used: 123, reserved: 0 });
  });

  it("refuses a reservation that would pass the limit, saying which scope and how full it is", async () => {
    const refused = await budgets.reserve({ userId: "U0A", channelId: "C0A" }, 900);
    expect(refused).toEqual({
      ok: false,
      refusal: { scope: "user", id: "U0A", limit: 1000, used: 123, reserved: 0, requested: 900 },
    });
    const fits = await budgets.reserve({ userId: "U0A" }, 877);
    expect(fits.ok).toBe(true);
    if (fits.ok) await budgets.settle(fits.reservation, 0); // a failed call: released, nothing used
    expect(await row(store, "user", "U0A")).toEqual({ used: 123, reserved: 0 });
  });

  it("holds nothing anywhere when the channel refuses after the user had room", async () => {
    await setLimit(budgets, { scope: "channel", id: "C0FULL", tokensPerDay: 500, by: "U0ADMIN" });
    const refused = await budgets.reserve({ userId: "U0B", channelId: "C0FULL" }, 501);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.refusal).toMatchObject({ scope: "channel", id: "C0FULL", limit: 500 });
    // The user's row was written by the same statement and undone with it.
    expect(await row(store, "user", "U0B")).toBeUndefined();
    expect((await row(store, "channel", "C0FULL")) ?? { used: 0, reserved: 0 }).toEqual({
      used: 0,
      reserved: 0,
    });
  });

  it("reservations and settles of many concurrent calls on one user and channel never deadlock and add up", async () => {
    // Reserves lock the user's row, then the channel's; a settle must take them in the same order.
    const requester = { userId: "U0BUSY", channelId: "C0BUSY" };
    const loops = Array.from({ length: 16 }, async () => {
      for (let i = 0; i < 15; i++) {
        const held = await budgets.reserve(requester, 10);
        if (!held.ok) throw new Error("refused");
        await budgets.settle(held.reservation, 3);
      }
    });
    await Promise.all(loops);
    expect(await row(store, "user", "U0BUSY")).toEqual({ used: 16 * 15 * 3, reserved: 0 });
    expect(await row(store, "channel", "C0BUSY")).toEqual({ used: 16 * 15 * 3, reserved: 0 });
  });

  it("concurrent reservations at a channel's limit: exactly what fits is held, and the refused hold nothing", async () => {
    await setLimit(budgets, { scope: "channel", id: "C0RACE", tokensPerDay: 1000, by: "U0ADMIN" });
    // 20 users, each new today (their day rows are created by the reservation), 100 tokens each.
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        budgets.reserve({ userId: `U0RACE${i}`, channelId: "C0RACE" }, 100),
      ),
    );
    const held = outcomes.filter((o) => o.ok);
    expect(held).toHaveLength(10);
    for (const o of outcomes)
      if (!o.ok)
        expect(o.refusal).toMatchObject({ scope: "channel", id: "C0RACE", limit: 1000, requested: 100 });
    expect(await row(store, "channel", "C0RACE")).toEqual({ used: 0, reserved: 1000 });
    const users = await Promise.all(outcomes.map((_, i) => row(store, "user", `U0RACE${i}`)));
    expect(users.map((u) => u ?? { used: 0, reserved: 0 })).toEqual(
      outcomes.map((o) => ({ used: 0, reserved: o.ok ? 100 : 0 })),
    );
    for (const o of outcomes) if (o.ok) await budgets.settle(o.reservation, 0);
    expect(await row(store, "channel", "C0RACE")).toEqual({ used: 0, reserved: 0 });
  });

  it("never goes negative, even when a reservation is settled twice", async () => {
    const held = await budgets.reserve({ userId: "U0C" }, 100);
    if (!held.ok) throw new Error("expected room");
    await budgets.settle(held.reservation, 40);
    await budgets.settle(held.reservation, 0);
    expect(await row(store, "user", "U0C")).toEqual({ used: 40, reserved: 0 });
  });

  it("an override wins over the default; 0 means no limit; clearing goes back to the default", async () => {
    expect(await budgets.limit("user", "U0D")).toEqual({ tokensPerDay: 1000, overridden: false });
    await setLimit(budgets, { scope: "user", id: "U0D", tokensPerDay: 5000, by: "U0ADMIN" });
    expect(await budgets.limit("user", "U0D")).toEqual({ tokensPerDay: 5000, overridden: true });
    expect((await budgets.reserve({ userId: "U0D" }, 4000)).ok).toBe(true);
    await setLimit(budgets, { scope: "user", id: "U0D", tokensPerDay: 0, by: "U0ADMIN" });
    expect((await budgets.reserve({ userId: "U0D" }, 1_000_000)).ok).toBe(true);
    await setLimit(budgets, { scope: "user", id: "U0D", tokensPerDay: null, by: "U0ADMIN" });
    expect(await budgets.limit("user", "U0D")).toEqual({ tokensPerDay: 1000, overridden: false });
    await setLimit(budgets, { scope: "channel", id: "C0FULL", tokensPerDay: null, by: "U0ADMIN" });
    expect(await budgets.limit("channel", "C0FULL")).toEqual({ tokensPerDay: 0, overridden: false });
  });

  it("a limit and its budget.changed audit row are written together, or neither is", async () => {
    const audit = createAuditLog({ db: store.handle.db });
    const failingAudit: AuditLog = {
      ...audit,
      append: async () => {
        throw new Error("audit_log: could not obtain the chain lock");
      },
    };
    const unaudited = createBudgetStore({
      db: store.handle.db,
      audit: failingAudit,
      defaults: { userTokensPerDay: 1000, channelTokensPerDay: 0 },
    });
    const change = { scope: "user" as const, id: "U0AUD", tokensPerDay: 7000, by: "U0ADMIN" };
    const event = {
      action: "budget.changed" as const,
      tool: "/hermes",
      userId: "U0ADMIN",
      actorId: "U0ADMIN",
      args: { scope: "user", id: "U0AUD", tokens_per_day: 7000 },
    };
    await expect(unaudited.setLimit(change, event)).rejects.toThrow("could not reach its database");
    expect(await budgets.limit("user", "U0AUD")).toEqual({ tokensPerDay: 1000, overridden: false });
    await expect(unaudited.setLimit({ ...change, scope: "channel", id: "C0AUD" }, event)).rejects.toThrow();
    expect(await budgets.limit("channel", "C0AUD")).toEqual({ tokensPerDay: 0, overridden: false });
    expect(
      await execSql(
        store.handle.db,
        "SELECT 1 FROM audit_log WHERE action = 'budget.changed' AND args->>'id' IN ('U0AUD', 'C0AUD')",
      ),
    ).toEqual([]);

    await budgets.setLimit(change, event);
    expect(await budgets.limit("user", "U0AUD")).toEqual({ tokensPerDay: 7000, overridden: true });
    const rows = await execSql<{ user_id: string; args: unknown }>(
      store.handle.db,
      "SELECT user_id, args FROM audit_log WHERE action = 'budget.changed' AND args->>'id' IN ('U0AUD', 'C0AUD')",
    );
    expect(rows).toEqual([
      { user_id: "U0ADMIN", args: { scope: "user", id: "U0AUD", tokens_per_day: 7000 } },
    ]);
  });

  it("days are UTC dates: usage shows today and this month; a new day starts empty", async () => {
    clock = new Date("2026-11-30T23:59:00Z"); // yesterday, in November
    const nov = await budgets.reserve({ userId: "U0E" }, 10);
    if (nov.ok) await budgets.settle(nov.reservation, 700);
    clock = new Date("2026-12-02T00:30:00+08:00"); // still Dec 1 in UTC
    for (const n of [200, 300]) {
      const held = await budgets.reserve({ userId: "U0E" }, 10);
      if (held.ok) await budgets.settle(held.reservation, n);
    }
    clock = new Date("2026-12-02T09:00:00Z");
    const dec2 = await budgets.reserve({ userId: "U0E" }, 50);
    if (dec2.ok) await budgets.settle(dec2.reservation, 50);
    expect(await row(store, "user", "U0E", "2026-11-30")).toEqual({ used: 700, reserved: 0 });
    expect(await row(store, "user", "U0E", "2026-12-01")).toEqual({ used: 500, reserved: 0 });
    expect(await budgets.usage("user", "U0E")).toEqual({
      today: 50,
      reserved: 0,
      month: 550,
      tokensPerDay: 1000,
      overridden: false,
    });
    clock = new Date(`${DAY}T10:00:00Z`);
  });

  it("top lists today's biggest users, most first, without idle ones", async () => {
    clock = new Date("2026-12-03T08:00:00Z");
    for (const [id, n] of [
      ["U0X", 10],
      ["U0Y", 30],
      ["U0Z", 20],
      ["U0IDLE", 0],
    ] as const) {
      const held = await budgets.reserve({ userId: id, channelId: "C0TOP" }, 1);
      if (held.ok) await budgets.settle(held.reservation, n);
    }
    expect(await budgets.top("user", 2)).toEqual([
      { id: "U0Y", used: 30 },
      { id: "U0Z", used: 20 },
    ]);
    expect(await budgets.top("channel", 5)).toEqual([{ id: "C0TOP", used: 60 }]);
    clock = new Date(`${DAY}T10:00:00Z`);
  });

  it("a team's top lists name only the people and channels its own runs used today", async () => {
    clock = new Date("2026-12-04T08:00:00Z");
    try {
      for (const [user, channel, n] of [
        ["U0TEAMA", "C0TEAMA", 40],
        ["U0TEAMB", "C0TEAMB", 70],
      ] as const) {
        const held = await budgets.reserve({ userId: user, channelId: channel }, 1);
        if (held.ok) await budgets.settle(held.reservation, n);
      }
      await execSql(
        store.handle.db,
        `INSERT INTO runs (id, session_key, snapshot, user_id, team_id, channel_id, created_at) VALUES
        ('run_ta', 'TA:C0TEAMA:1', '{}', 'U0TEAMA', 'TA', 'C0TEAMA', '2026-12-04T07:00:00Z'),
        ('run_tb', 'TB:C0TEAMB:1', '{}', 'U0TEAMB', 'TB', 'C0TEAMB', '2026-12-04T07:00:00Z'),
        ('run_old', 'TA:C0TEAMB:1', '{}', 'U0TEAMB', 'TA', 'C0TEAMB', '2026-12-03T07:00:00Z')`,
      );
      expect(await budgets.top("user", 5, "TA")).toEqual([{ id: "U0TEAMA", used: 40 }]);
      expect(await budgets.top("channel", 5, "TA")).toEqual([{ id: "C0TEAMA", used: 40 }]);
      expect(await budgets.top("user", 5, "TB")).toEqual([{ id: "U0TEAMB", used: 70 }]);
      expect(await budgets.top("user", 5)).toEqual([
        { id: "U0TEAMB", used: 70 },
        { id: "U0TEAMA", used: 40 },
      ]);
    } finally {
      clock = new Date(`${DAY}T10:00:00Z`);
    }
  });
});

describe("budget store round trips (postgres)", () => {
  let store: TestStore;
  let counted: DatabaseHandle | undefined;
  const sent: string[] = [];
  let budgets: BudgetStore;
  beforeAll(async () => {
    store = await openTestStore("postgres");
    counted = await openDatabase({ databaseUrl: store.url!, dataDir: "", logger: silentLogger() });
    if (counted.kind !== "postgres") throw new Error("expected postgres");
    // Every statement any pooled connection sends, in order.
    counted.pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        sent.push(String(typeof args[0] === "string" ? args[0] : (args[0] as { text: string }).text));
        return query(...args);
      };
    });
    budgets = createBudgetStore({
      db: counted.db,
      audit: createAuditLog({ db: counted.db }),
      defaults: { userTokensPerDay: 1000, channelTokensPerDay: 0 },
      now: () => clock,
    });
  });
  afterAll(async () => {
    await counted?.close();
    await store?.cleanup();
  });

  it("a reservation is one statement (no transaction around it); a refusal adds one read, and holds nothing", async () => {
    sent.length = 0;
    const held = await budgets.reserve({ userId: "U0RT", channelId: "C0RT" }, 600);
    expect(held.ok).toBe(true);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/INSERT INTO token_usage/);
    sent.length = 0;
    const refused = await budgets.reserve({ userId: "U0RT", channelId: "C0RT" }, 600);
    expect(refused).toEqual({
      ok: false,
      refusal: { scope: "user", id: "U0RT", limit: 1000, used: 0, reserved: 600, requested: 600 },
    });
    expect(sent).toHaveLength(2);
    expect(sent.some((q) => /^\s*(BEGIN|COMMIT|ROLLBACK)/i.test(q))).toBe(false);
    // The channel (no limit) had room, and the statement that found the user full undid its row too.
    expect(await row(store, "channel", "C0RT")).toEqual({ used: 0, reserved: 600 });
    if (held.ok) await budgets.settle(held.reservation, 10);
    expect(await row(store, "user", "U0RT")).toEqual({ used: 10, reserved: 0 });
  });
});
