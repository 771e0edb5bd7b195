import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { type DatabaseHandle, openDatabase } from "../../src/store/db.ts";
import { sql } from "../../src/store/drizzle.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.ts";

/**
 * Postgres drops the connection of a client the pool has handed out (a transaction between two
 * statements). pg emits `error` on that client besides failing its statements; without a listener
 * that event is an uncaught exception, which would kill a Hermes process in the middle of an outage
 * every caller already handles. The transaction must fail as an ordinary rejected promise, nothing else.
 */
describe("a connection lost while checked out of the pool", () => {
  let db: TestDatabase | undefined;
  let proxy: TcpProxy | undefined;
  let handle: DatabaseHandle | undefined;
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  afterEach(async () => {
    process.off("uncaughtException", onUncaught);
    proxy?.restore();
    await handle?.close().catch(() => {});
    await proxy?.close();
    await db?.drop();
  });

  it("fails the transaction and raises no uncaught exception; the pool then works again", async () => {
    db = await createTestDatabase();
    proxy = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(db.url).port || 5432) });
    handle = await openDatabase({ databaseUrl: proxy.url(db.url), dataDir: "", logger: silentLogger() });
    process.on("uncaughtException", onUncaught);
    const p = proxy;
    let cut!: () => void;
    const inside = new Promise<void>((resolve) => {
      cut = resolve;
    });
    const tx = handle.db.transaction(async (t) => {
      await t.execute(sql`SELECT 1`);
      cut();
      // Held between statements while the connection is reset under it.
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if (p.mode === "cut") {
            clearInterval(timer);
            resolve();
          }
        }, 5);
      });
      await t.execute(sql`SELECT pg_sleep(0.2)`);
    });
    await inside;
    proxy.cut();
    await expect(tx).rejects.toThrow();
    // The client's own `error` event fires on the socket's end, after the statement fails: wait for
    // the pool to have let the broken client go, then for one more turn of the event loop.
    await expect.poll(() => (handle?.kind === "postgres" ? handle.pool.totalCount : 0)).toBe(0);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(uncaught).toEqual([]);
    proxy.restore();
    await expect(handle.db.execute(sql`SELECT 1 AS one`)).resolves.toBeDefined();
  }, 60_000);
});
