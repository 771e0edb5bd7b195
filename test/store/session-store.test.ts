import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatMessage } from "../../src/agent/context/messages.ts";
import { isHermesError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createMemorySessionStore } from "../../src/store/memory-session-store.ts";
import { createRedisSessionStore } from "../../src/store/redis-session-store.ts";
import type { SessionStore } from "../../src/store/session-store.ts";
import { connectTestRedis, deleteKeysWithPrefix, uniqueRedisPrefix } from "../helpers/redis.ts";

interface Backend {
  store: SessionStore;
  /** Another process's store on the same backend (memory is single-process: the same store). */
  peer: SessionStore;
  open(options?: { ttlSeconds?: number; redis?: Redis }): SessionStore;
  /** Redis only: remaining TTL of a thread's history and of its lock, in ms. */
  historyPttl?(sessionKey: string): Promise<number>;
  lockPttl?(sessionKey: string): Promise<number>;
  /** Redis only: overwrites a thread's stored history with this text. */
  writeRaw?(sessionKey: string, text: string): Promise<unknown>;
  /** Redis only: deletes every key of this backend, as a FLUSHALL would. */
  loseEverything?(): Promise<number>;
  close(): Promise<void>;
}

async function redisBackend(): Promise<Backend> {
  const prefix = uniqueRedisPrefix("session-store");
  const admin = connectTestRedis();
  const clients: Redis[] = [admin];
  const stores: SessionStore[] = [];
  const open = (options: { ttlSeconds?: number; redis?: Redis } = {}) => {
    let client = options.redis;
    if (!client) {
      client = connectTestRedis();
      clients.push(client);
    }
    const store = createRedisSessionStore({
      redis: client,
      keyPrefix: prefix,
      ttlSeconds: options.ttlSeconds,
      logger: silentLogger(),
    });
    stores.push(store);
    return store;
  };
  return {
    store: open(),
    peer: open(),
    open,
    historyPttl: (key) => admin.pttl(`${prefix}session:${key}`),
    lockPttl: (key) => admin.pttl(`${prefix}lock:{${key}}`),
    writeRaw: (key, text) => admin.set(`${prefix}session:${key}`, text),
    loseEverything: () => deleteKeysWithPrefix(admin, prefix),
    async close() {
      for (const store of stores) await store.close();
      await deleteKeysWithPrefix(admin, prefix);
      for (const client of clients) client.disconnect();
    },
  };
}

async function memoryBackend(): Promise<Backend> {
  const stores: SessionStore[] = [];
  const open = (options: { ttlSeconds?: number } = {}) => {
    const store = createMemorySessionStore({ ttlSeconds: options.ttlSeconds });
    stores.push(store);
    return store;
  };
  const store = open();
  return {
    store,
    peer: store,
    open,
    async close() {
      for (const s of stores) await s.close();
    },
  };
}

let counter = 0;
const newKey = () => `T0001:C0001:${Date.now()}.${++counter}`;

interface Span {
  name: string;
  start: number;
  end: number;
}

/** Runs a turn that records when it ran. */
async function turn(
  store: SessionStore,
  key: string,
  name: string,
  ms: number,
  spans: Span[],
  waitMs = 5000,
) {
  return store.withLock(
    key,
    async () => {
      const start = performance.now();
      await sleep(ms);
      spans.push({ name, start, end: performance.now() });
      return name;
    },
    { waitMs },
  );
}

function expectNoOverlap(spans: Span[]) {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    expect(sorted[i]!.start).toBeGreaterThanOrEqual(sorted[i - 1]!.end);
  }
}

const history: ChatMessage[] = [
  { role: "user", content: "Open a ticket: VPN down", author: "U0USER1" },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "create_ticket", arguments: "{}" }] },
  { role: "tool", toolCallId: "c1", name: "create_ticket", content: '{"id":42}' },
];

/** History in the OpenAI wire format: not what the runtime stores, so never handed back to it. */
const wireFormatHistory = [
  { role: "user", content: "Open a ticket: VPN down" },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "create_ticket", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "c1", content: '{"id":42}' },
];

describe.each([
  { name: "redis", setup: redisBackend },
  { name: "memory", setup: memoryBackend },
])("$name session store", ({ setup }) => {
  let backend: Backend;
  let store: SessionStore;
  let peer: SessionStore;

  beforeAll(async () => {
    backend = await setup();
    store = backend.store;
    peer = backend.peer;
    // Warm up connections and subscriptions so timing-based tests measure the lock, not connecting.
    await Promise.all([store.withLock(newKey(), () => {}), peer.withLock(newKey(), () => {})]);
  });
  afterAll(() => backend.close());

  it("round-trips a history, replaces it on save, and forgets it on delete", async () => {
    const key = newKey();
    await store.save(key, history);
    expect(await store.load(key)).toEqual({ messages: history, found: true });
    expect(await peer.load(key)).toEqual({ messages: history, found: true });

    await store.save(key, history.slice(0, 1));
    expect((await store.load(key)).messages).toEqual(history.slice(0, 1));

    await store.delete(key);
    expect(await store.load(key)).toEqual({ messages: [], found: false });
  });

  it("loads an unknown thread as an empty history, not an error", async () => {
    expect(await store.load(newKey())).toEqual({ messages: [], found: false });
  });

  it("loads a stored history that is not chat messages as no history, saying why, and carries on", async () => {
    const key = newKey();
    await store.save(key, wireFormatHistory as never);
    const loaded = await store.load(key);
    expect(loaded).toMatchObject({ messages: [], found: false });
    expect(loaded.unreadable).toMatch(/content|toolCallId/);
    // The next turn's history replaces it.
    await store.save(key, history);
    expect(await store.load(key)).toEqual({ messages: history, found: true });
  });

  it("slides the TTL on every load and save", async () => {
    const short = backend.open({ ttlSeconds: 1 });
    const key = newKey();
    await short.save(key, history);
    if (backend.historyPttl) expect(await backend.historyPttl(key)).toBeGreaterThan(900);

    await sleep(600);
    if (backend.historyPttl) expect(await backend.historyPttl(key)).toBeLessThan(500);
    expect((await short.load(key)).found).toBe(true);
    if (backend.historyPttl) expect(await backend.historyPttl(key)).toBeGreaterThan(900);

    await sleep(600); // 1.2 s after the save: alive only because the load renewed it
    expect((await short.load(key)).found).toBe(true);

    await sleep(1100);
    expect(await short.load(key)).toEqual({ messages: [], found: false });
  });

  it("runs two turns on one thread strictly one after the other", async () => {
    const key = newKey();
    const spans: Span[] = [];
    const results = await Promise.all([
      turn(store, key, "a", 80, spans),
      turn(peer, key, "b", 80, spans),
      turn(store, key, "c", 80, spans),
    ]);
    expect(results).toEqual(["a", "b", "c"]);
    expect(spans).toHaveLength(3);
    expectNoOverlap(spans);
  });

  it("serves waiting turns first come, first served", async () => {
    const key = newKey();
    const spans: Span[] = [];
    const holder = turn(store, key, "holder", 150, spans);
    const waiting: Promise<string>[] = [];
    for (const [i, s] of [store, peer, store, peer].entries()) {
      await sleep(25);
      waiting.push(turn(s, key, `w${i + 1}`, 10, spans));
    }
    await Promise.all([holder, ...waiting]);
    expect(spans.map((s) => s.name)).toEqual(["holder", "w1", "w2", "w3", "w4"]);
    expectNoOverlap(spans);
  });

  it("runs turns on different threads concurrently", async () => {
    let arrived = 0;
    let bothInside!: () => void;
    const together = new Promise<void>((resolve) => {
      bothInside = resolve;
    });
    const meet = async () => {
      if (++arrived === 2) bothInside();
      await Promise.race([together, sleep(2000).then(() => Promise.reject(new Error("never ran together")))]);
      return true;
    };
    await expect(
      Promise.all([store.withLock(newKey(), meet), peer.withLock(newKey(), meet)]),
    ).resolves.toEqual([true, true]);
  });

  it("releases the lock when the turn throws", async () => {
    const key = newKey();
    await expect(
      store.withLock(key, () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    const started = performance.now();
    await expect(peer.withLock(key, () => "next", { waitMs: 0 })).resolves.toBe("next");
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("renews a lease shorter than the turn, so nobody else takes the lock meanwhile", async () => {
    const key = newKey();
    let aborted = false;
    const holder = store.withLock(
      key,
      async (signal) => {
        await sleep(700);
        aborted = signal.aborted;
        return "held";
      },
      { leaseMs: 150 },
    );
    await sleep(50);
    const intruder = peer.withLock(key, () => "stolen", { waitMs: 400 }).catch((err: unknown) => err);
    await sleep(450); // three leases later
    if (backend.lockPttl) expect(await backend.lockPttl(key)).toBeGreaterThan(0);
    expect(isHermesError(await intruder, "storage_unavailable")).toBe(true);
    await expect(holder).resolves.toBe("held");
    expect(aborted).toBe(false);
    await expect(peer.withLock(key, () => "after", { waitMs: 0 })).resolves.toBe("after");
  });

  it("gives up with a HermesError after waitMs and leaves the queue", async () => {
    const key = newKey();
    const holder = store.withLock(key, () => sleep(400));
    await sleep(20);
    const started = performance.now();
    const err = await peer.withLock(key, () => "never", { waitMs: 100 }).catch((e: unknown) => e);
    const waited = performance.now() - started;
    expect(isHermesError(err, "storage_unavailable")).toBe(true);
    expect((err as Error).message).toMatch(/still running.*waited 100 ms/);
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(350);
    await holder;
    // The timed-out turn is no longer ahead in the queue: a turn that will not wait at all gets in.
    await expect(store.withLock(key, () => "free", { waitMs: 0 })).resolves.toBe("free");
  });

  it("close() rejects waiting turns and aborts running ones", async () => {
    const closing = backend.open();
    const key = newKey();
    let abortReason: unknown;
    const holder = closing.withLock(key, async (signal) => {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      abortReason = signal.reason;
    });
    await sleep(30);
    const waiter = closing.withLock(key, () => "never").catch((err: unknown) => err);
    await sleep(30);
    await closing.close();
    expect(isHermesError(await waiter, "storage_unavailable")).toBe(true);
    await holder;
    expect(isHermesError(abortReason, "storage_unavailable")).toBe(true);
    await expect(closing.load(key)).rejects.toSatisfy((err) => isHermesError(err));
  });
});

describe("redis session store across processes and failures", () => {
  let backend: Backend;

  beforeAll(async () => {
    backend = await redisBackend();
  });
  afterAll(() => backend.close());

  const loseRedis = () => backend.loseEverything!();

  it("starts with an empty history when Redis loses the session, and carries on", async () => {
    const key = newKey();
    await backend.store.save(key, history);
    expect(await loseRedis()).toBeGreaterThan(0);
    expect(await backend.store.load(key)).toEqual({ messages: [], found: false });
    await backend.store.save(key, history.slice(0, 1));
    expect(await backend.store.load(key)).toEqual({ messages: history.slice(0, 1), found: true });
  });

  it("loads a history that is not JSON at all as no history, saying why", async () => {
    const key = newKey();
    await backend.store.save(key, history);
    await backend.writeRaw!(key, "{not json");
    expect(await backend.store.load(key)).toEqual({ messages: [], found: false, unreadable: "not JSON" });
  });

  it("aborts the running turn when its lock vanishes, without failing it", async () => {
    const key = newKey();
    let reason: unknown;
    const result = await backend.store.withLock(
      key,
      async (signal) => {
        await loseRedis();
        await Promise.race([
          new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true })),
          sleep(1000),
        ]);
        reason = signal.reason;
        return "stopped";
      },
      { leaseMs: 150 },
    );
    expect(result).toBe("stopped");
    expect(isHermesError(reason, "storage_unavailable")).toBe(true);
    await expect(backend.peer.withLock(key, () => "next", { waitMs: 0 })).resolves.toBe("next");
  });

  it("serializes many turns from two connections on one thread", async () => {
    const key = newKey();
    const spans: Span[] = [];
    const turns = Array.from({ length: 8 }, (_, i) =>
      turn(i % 2 === 0 ? backend.store : backend.peer, key, `t${i}`, 25, spans),
    );
    expect(await Promise.all(turns)).toHaveLength(8);
    expect(spans).toHaveLength(8);
    expectNoOverlap(spans);
  });

  it("lets the next turn in after a holder's process dies, once the lease ends", async () => {
    const key = newKey();
    const dying = connectTestRedis();
    const crashed = backend.open({ redis: dying });
    let abortedAt = Number.POSITIVE_INFINITY;
    const holder = crashed.withLock(
      key,
      async (signal) => {
        dying.disconnect(); // the process "dies": no renewals, no release
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        abortedAt = performance.now();
      },
      { leaseMs: 300 },
    );
    await sleep(20);
    const started = performance.now();
    let ranAt = 0;
    await backend.peer.withLock(key, () => {
      ranAt = performance.now();
    });
    await holder;
    expect(ranAt - started).toBeLessThan(1000);
    // The dying holder was told to stop before the lease could pass to someone else.
    expect(abortedAt).toBeLessThan(ranAt);
  });

  it("skips a queued turn whose process died", { timeout: 10_000 }, async () => {
    const key = newKey();
    const holder = backend.store.withLock(key, () => sleep(200));
    await sleep(20);
    const dying = connectTestRedis();
    const crashed = backend.open({ redis: dying });
    const ghost = crashed.withLock(key, () => "ghost").catch((err: unknown) => err);
    await sleep(20);
    const next = backend.peer.withLock(key, () => "next");
    await sleep(20);
    dying.disconnect();
    await crashed.close();
    expect(isHermesError(await ghost)).toBe(true);
    await holder;
    await expect(next).resolves.toBe("next");
  });
});
