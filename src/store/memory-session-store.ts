import {
  lockWaitTimeoutError,
  parseStoredMessages,
  resolveLockOptions,
  type SessionStore,
  sessionTtlMs,
  storeClosedError,
} from "./session-store.ts";

export interface MemorySessionStoreOptions {
  /** Sliding TTL of a thread's history; each load or save renews it. Default 7 days. */
  ttlSeconds?: number;
}

interface QueuedTurn {
  grant: () => void;
  fail: (err: unknown) => void;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Sessions for the embedded, single-process default. History is kept as JSON text, so callers get
 * fresh copies and the same round-trip as Redis. The lock is a FIFO hand-over queue per key; its lease
 * is not needed (a holder cannot vanish without the whole process), so `leaseMs` is only validated.
 */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const ttlMs = sessionTtlMs(options.ttlSeconds);
  const sessions = new Map<string, { json: string; expiresAt: number }>();
  // A key is present while its lock is held; the array holds the turns waiting behind the holder.
  const locks = new Map<string, QueuedTurn[]>();
  const holders = new Set<AbortController>();
  let lastSweep = Date.now();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw storeClosedError();
  }

  // Expired entries are dropped lazily on access, and all of them now and then, so memory stays bounded.
  function sweep(now: number): void {
    if (now - lastSweep < SWEEP_EVERY_MS) return;
    lastSweep = now;
    for (const [key, entry] of sessions) if (entry.expiresAt <= now) sessions.delete(key);
  }

  function acquire(sessionKey: string, waitMs: number): Promise<void> {
    const queue = locks.get(sessionKey);
    if (!queue) {
      locks.set(sessionKey, []);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const turn: QueuedTurn = {
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
        fail: (err) => {
          clearTimeout(timer);
          const at = queue.indexOf(turn);
          if (at >= 0) queue.splice(at, 1);
          reject(err);
        },
      };
      const timer = setTimeout(() => turn.fail(lockWaitTimeoutError(sessionKey, waitMs)), waitMs);
      queue.push(turn);
    });
  }

  // Hands the lock straight to the next queued turn, so nobody can jump the queue in between.
  function release(sessionKey: string): void {
    const next = locks.get(sessionKey)?.shift();
    if (next) next.grant();
    else locks.delete(sessionKey);
  }

  return {
    async load(sessionKey) {
      assertOpen();
      const now = Date.now();
      sweep(now);
      const entry = sessions.get(sessionKey);
      if (!entry || entry.expiresAt <= now) {
        sessions.delete(sessionKey);
        return { messages: [], found: false };
      }
      entry.expiresAt = now + ttlMs;
      return parseStoredMessages(entry.json);
    },

    async save(sessionKey, messages) {
      assertOpen();
      const now = Date.now();
      sweep(now);
      sessions.set(sessionKey, { json: JSON.stringify(messages), expiresAt: now + ttlMs });
    },

    async delete(sessionKey) {
      assertOpen();
      sessions.delete(sessionKey);
    },

    async withLock(sessionKey, fn, lockOptions = {}) {
      assertOpen();
      const { waitMs } = resolveLockOptions(lockOptions);
      await acquire(sessionKey, waitMs);
      const controller = new AbortController();
      holders.add(controller);
      try {
        return await fn(controller.signal);
      } finally {
        holders.delete(controller);
        release(sessionKey);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const queue of locks.values()) for (const turn of [...queue]) turn.fail(storeClosedError());
      for (const controller of holders) controller.abort(storeClosedError());
      sessions.clear();
    },
  };
}
