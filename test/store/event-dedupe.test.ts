import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isHermesError } from "../../src/core/errors.ts";
import { createEventDedupe, type EventDedupe } from "../../src/store/event-dedupe.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const SESSION = "T01:C01:1700000000.000100";
const STALE = { sessionKey: SESSION, staleAfterMs: 60_000 };

describe.each(DRIVERS)("Slack event dedupe on %s", (kind) => {
  let store: TestStore;
  let dedupe: EventDedupe;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 10 });
    dedupe = createEventDedupe(store.handle);
  });
  afterAll(() => store?.cleanup());

  /** As if the claim was taken ten minutes ago by a process that is gone now. */
  const age = (eventId: string) =>
    execSql(
      store.handle.db,
      `UPDATE slack_events SET received_at = now() - interval '10 minutes' WHERE event_id = '${eventId}'`,
    );

  it("first delivery is new, a retry is a duplicate", async () => {
    expect(await dedupe.claim("Ev01", STALE)).toBe("new");
    expect(await dedupe.claim("Ev01", STALE)).toBe("duplicate");
    const [row] = await execSql(
      store.handle.db,
      "SELECT status, session_key FROM slack_events WHERE event_id = 'Ev01'",
    );
    expect(row).toEqual({ status: "received", session_key: SESSION });
  });

  it("20 concurrent deliveries of one event: one new, the rest duplicates", async () => {
    const claims = await Promise.all(Array.from({ length: 20 }, () => dedupe.claim("Ev02", STALE)));
    expect(claims.filter((c) => c === "new")).toHaveLength(1);
    expect(claims.filter((c) => c === "duplicate")).toHaveLength(19);
  });

  it("a stale unfinished claim is reclaimed exactly once under concurrency", async () => {
    expect(await dedupe.claim("Ev03", STALE)).toBe("new");
    await age("Ev03");
    const claims = await Promise.all(Array.from({ length: 10 }, () => dedupe.claim("Ev03", STALE)));
    expect(claims.filter((c) => c === "reclaimed")).toHaveLength(1);
    expect(claims.filter((c) => c === "duplicate")).toHaveLength(9);
    // The reclaim refreshed the claim: a retry right after is a duplicate again.
    expect(await dedupe.claim("Ev03", STALE)).toBe("duplicate");
  });

  it("a recent unfinished claim is a duplicate (still running elsewhere)", async () => {
    expect(await dedupe.claim("Ev04", STALE)).toBe("new");
    expect(await dedupe.claim("Ev04", { sessionKey: SESSION, staleAfterMs: 3_600_000 })).toBe("duplicate");
  });

  it("a finished event stays a duplicate however old, done or failed", async () => {
    for (const [id, status] of [
      ["Ev05", "done"],
      ["Ev06", "failed"],
    ] as const) {
      expect(await dedupe.claim(id, STALE)).toBe("new");
      await dedupe.finish(id, status);
      await age(id);
      expect(await dedupe.claim(id, STALE)).toBe("duplicate");
      const [row] = await execSql<{ status: string; finished: boolean }>(
        store.handle.db,
        `SELECT status, finished_at IS NOT NULL AS finished FROM slack_events WHERE event_id = '${id}'`,
      );
      expect(row).toEqual({ status, finished: true });
    }
  });

  it("refuses a stale threshold too short to be exactly-once", async () => {
    const err = await dedupe.claim("Ev07", { staleAfterMs: 10 }).catch((e: unknown) => e);
    expect(isHermesError(err, "config_invalid")).toBe(true);
  });
});
