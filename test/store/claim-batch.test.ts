import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isHermesError } from "../../src/core/errors.ts";
import { createClaimBatcher } from "../../src/store/claim-batch.ts";
import type { Database } from "../../src/store/db.ts";
import { createEventDedupe, type EventDedupe } from "../../src/store/event-dedupe.ts";
import { DRIVERS, execSql, openTestStore, type TestStore } from "../helpers/pg.ts";

const STALE = { staleAfterMs: 60_000 };

describe.each(DRIVERS)("claims in a burst, and a thread's earlier messages, on %s", (kind) => {
  let store: TestStore;
  let dedupe: EventDedupe;
  beforeAll(async () => {
    store = await openTestStore(kind, { maxConnections: 5 });
    dedupe = createEventDedupe(store.handle);
  });
  afterAll(() => store?.cleanup());

  it("600 claims at once (more than one statement's rows), mixed with repeats: each event has one owner and its job", async () => {
    await dedupe.claim("EvB-done", STALE);
    await dedupe.finish("EvB-done", "done");
    const ids = Array.from({ length: 600 }, (_, i) => `EvB${i}`);
    const claims = await Promise.all([
      ...ids.map((id, i) => dedupe.claim(id, { ...STALE, sessionKey: `T:C:${i}`, payload: { n: i } })),
      // The same events again in the same moment (a retry racing its first delivery) and a finished one.
      ...ids.slice(0, 50).map((id) => dedupe.claim(id, STALE)),
      dedupe.claim("EvB-done", STALE),
    ]);
    expect(claims.slice(0, 600)).toEqual(ids.map(() => "new"));
    expect(claims.slice(600)).toEqual(claims.slice(600).map(() => "duplicate"));
    const rows = await execSql(
      store.handle.db,
      "SELECT count(*)::int AS n, count(payload)::int AS jobs FROM slack_events WHERE event_id LIKE 'EvB_%' AND event_id <> 'EvB-done'",
    );
    expect(rows[0]).toEqual({ n: 600, jobs: 600 });
    const [one] = await execSql(
      store.handle.db,
      "SELECT session_key, payload FROM slack_events WHERE event_id = 'EvB7'",
    );
    expect(one).toEqual({ session_key: "T:C:7", payload: { n: 7 } });
  });

  it("claims made while two statements are in flight wait, and go together in one statement once one returns", async () => {
    const real = store.handle.db;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let statements = 0;
    const gated = Object.create(real, {
      execute: {
        value: async (query: Parameters<Database["execute"]>[0]) => {
          statements++;
          await gate;
          return real.execute(query);
        },
      },
    }) as Database;
    const claim = createClaimBatcher(gated, { maxInFlight: 2 });
    const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
    // One claim per turn of the event loop (a burst read one request at a time).
    const claims: Array<Promise<boolean>> = [];
    for (let i = 0; i < 5; i++) {
      claims.push(claim({ eventId: `EvG${i}`, sessionKey: `T:C:${i}` }));
      await nextTurn();
      await nextTurn();
    }
    expect(statements).toBe(2);
    open();
    expect(await Promise.all(claims)).toEqual([true, true, true, true, true]);
    expect(statements).toBe(3);
    const [row] = await execSql(
      real,
      "SELECT count(*)::int AS n FROM slack_events WHERE event_id LIKE 'EvG%'",
    );
    expect(row).toEqual({ n: 5 });
  });

  it("a job's text with quotes, a NUL and a lone surrogate is stored as its storable JSON, in a batch", async () => {
    const texts = ['say "hi" \\ \u0000 \uD800 😀', "plain"];
    await Promise.all(
      texts.map((text, i) =>
        dedupe.claim(`EvText${i}`, { ...STALE, sessionKey: 'T:"C"', payload: { text } }),
      ),
    );
    const rows = await execSql<{ event_id: string; session_key: string; payload: unknown }>(
      store.handle.db,
      "SELECT event_id, session_key, payload FROM slack_events WHERE event_id LIKE 'EvText%' ORDER BY event_id",
    );
    expect(rows).toEqual([
      { event_id: "EvText0", session_key: 'T:"C"', payload: { text: 'say "hi" \\ \uFFFD \uFFFD 😀' } },
      { event_id: "EvText1", session_key: 'T:"C"', payload: { text: "plain" } },
    ]);
  });

  it("a claim whose statement fails is refused as storage unavailable, like any other", async () => {
    const other = await openTestStore(kind, { maxConnections: 1 });
    const closed = createEventDedupe(other.handle);
    await other.cleanup();
    const results = await Promise.allSettled([closed.claim("EvX1", STALE), closed.claim("EvX2", STALE)]);
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect(isHermesError((r as PromiseRejectedResult).reason, "storage_unavailable")).toBe(true);
    }
  });

  it("earlier unfinished messages of a thread: by Slack ts, this thread only, unfinished only", async () => {
    const thread = "T:C:1700000000.000100";
    const claim = (eventId: string, messageTs: string, sessionKey = thread) =>
      dedupe.claim(eventId, { ...STALE, sessionKey, payload: { messageTs } });
    await claim("EvO1", "1700000000.000100");
    await claim("EvO2", "1700000005.000200");
    await claim("EvO3", "1700000009.000300");
    await claim("EvO-other", "1700000001.000000", "T:C:other");
    await claim("EvO-odd", "not a ts");
    const earlier = (eventId: string, messageTs: string, withinMs = 60_000) =>
      dedupe.earlierUnfinished({ sessionKey: thread, messageTs, eventId, withinMs });

    expect(await earlier("EvO1", "1700000000.000100")).toEqual([]);
    expect((await earlier("EvO3", "1700000009.000300")).sort()).toEqual(["EvO1", "EvO2"]);
    // A ts with more digits before the point is later, not earlier (compared as numbers, not text).
    expect((await earlier("EvO4", "17000000100.000000")).sort()).toEqual(["EvO1", "EvO2", "EvO3"]);
    // A claim older than the window is a dead one: it holds nobody up.
    await execSql(
      store.handle.db,
      "UPDATE slack_events SET received_at = now() - interval '10 minutes' WHERE event_id = 'EvO2'",
    );
    expect((await earlier("EvO3", "1700000009.000300")).sort()).toEqual(["EvO1"]);
    expect((await earlier("EvO3", "1700000009.000300", 3_600_000)).sort()).toEqual(["EvO1", "EvO2"]);
    await dedupe.finish("EvO1", "done");
    await dedupe.finish("EvO2", "failed");
    expect(await earlier("EvO3", "1700000009.000300")).toEqual([]);
    expect(await earlier("EvO3", "not a ts")).toEqual([]);
  });
});
