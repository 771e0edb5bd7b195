import { createHash, randomUUID } from "node:crypto";
import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { duplicateRedis, type RedisClient } from "../core/redis-target.ts";
import {
  lockLostError,
  lockWaitTimeoutError,
  resolveLockOptions,
  type SessionStore,
  storeClosedError,
} from "./session-store.ts";

/**
 * The per-thread turn lock on Redis, shared by every replica.
 *
 * Holding: `SET lock <token> NX PX lease`, renewed every lease/3 by a token-compare script; a watchdog
 * aborts the holder's signal when no renewal has succeeded for most of a lease (Redis unreachable or
 * the key gone), i.e. before anyone else can take the lock. Release deletes only our own token.
 *
 * Waiting (strict FIFO across processes, no hard spinning): each waiter enqueues its token in a sorted
 * set scored by arrival time, and only the head may take the lock. A waiter sleeps until a release
 * notification (pub/sub on one channel per prefix, one subscriber connection per store) or a poll
 * timeout — at most POLL_MS, or sooner when the current lease ends (a crashed holder) — plus jitter.
 * Each attempt also refreshes the waiter's heartbeat; a waiter whose process died (no heartbeat for
 * WAITER_TTL_MS) is dropped from the queue by the next attempt of anyone else. Pub/sub instead of BLPOP
 * because BLPOP would need a blocked connection per waiting turn; lost messages only cost a poll.
 */

const POLL_MS = 1000;
const JITTER_MS = 100;
const WAITER_TTL_MS = 3000;
const ACQUIRED = -1;

// KEYS: lock, queue, heartbeats. ARGV: token, leaseMs, waiterTtlMs, channel, sessionKey.
// Returns -1 when acquired, otherwise the lock's remaining lease in ms (0: free, but not our turn yet).
const ACQUIRE = lua(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, w in ipairs(stale) do redis.call('ZREM', KEYS[2], w) end
if #stale > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now) end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if head == ARGV[1] and redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return -1
end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
if #stale > 0 then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then return 0 end
return ttl
`);

// KEYS: queue, heartbeats. ARGV: token, channel, sessionKey. Wakes the others: the head may have changed.
const LEAVE = lua(`
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`);

// KEYS: lock. ARGV: token, leaseMs.
const RENEW = lua(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

// KEYS: lock. ARGV: token, channel, sessionKey.
const RELEASE = lua(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0
`);

export interface RedisSessionLockOptions {
  redis: RedisClient;
  keyPrefix: string;
  logger: Logger;
}

/** The lock half of the Redis session store (same contract as `SessionStore.withLock`). */
export type RedisSessionLock = Pick<SessionStore, "withLock" | "close">;

interface Waiter {
  woken: boolean;
  notify: (() => void) | undefined;
}

export function createRedisSessionLock({
  redis,
  keyPrefix,
  logger,
}: RedisSessionLockOptions): RedisSessionLock {
  const channel = `${keyPrefix}lock-released`;
  const waiters = new Map<string, Set<Waiter>>();
  const holders = new Set<AbortController>();
  let subscriber: RedisClient | undefined;
  let subscribed: Promise<void> | undefined;
  let closed = false;

  // The hash tag keeps a thread's three keys in one slot, so the scripts also work on Redis Cluster.
  const keysFor = (sessionKey: string) => ({
    lock: `${keyPrefix}lock:{${sessionKey}}`,
    queue: `${keyPrefix}lock-queue:{${sessionKey}}`,
    heartbeats: `${keyPrefix}lock-alive:{${sessionKey}}`,
  });

  function wake(sessionKey: string): void {
    for (const waiter of waiters.get(sessionKey) ?? []) {
      waiter.woken = true;
      waiter.notify?.();
    }
  }

  function subscribe(): Promise<void> {
    subscribed ??= (async () => {
      const sub = duplicateRedis(redis);
      subscriber = sub;
      sub.on("error", (err: unknown) => logger.debug({ err }, "session lock subscriber error"));
      sub.on("message", (ch: string, sessionKey: string) => {
        if (ch === channel) wake(sessionKey);
      });
      await sub.subscribe(channel);
    })().catch((err: unknown) => {
      logger.warn({ err }, "session lock release notifications unavailable; waiting turns poll instead");
    });
    return subscribed;
  }

  /** Sleeps until woken by a release, `ms` passes, or the store closes. */
  function pause(waiter: Waiter, ms: number): Promise<void> {
    if (waiter.woken || closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      waiter.notify = done;
      function done() {
        clearTimeout(timer);
        waiter.notify = undefined;
        resolve();
      }
    });
  }

  /** Resolves with the time the winning attempt was sent: the lease runs from (a little after) then. */
  async function acquire(
    sessionKey: string,
    token: string,
    leaseMs: number,
    waitMs: number,
  ): Promise<number> {
    const keys = keysFor(sessionKey);
    const deadline = Date.now() + waitMs;
    await subscribe();
    const waiter: Waiter = { woken: false, notify: undefined };
    const group = waiters.get(sessionKey) ?? new Set<Waiter>();
    waiters.set(sessionKey, group);
    group.add(waiter);
    let queued = false;
    try {
      for (;;) {
        if (closed) throw storeClosedError();
        waiter.woken = false; // set before the attempt, so a release racing it is not missed
        const sentAt = Date.now();
        const result = Number(
          await runScript(
            redis,
            ACQUIRE,
            [keys.lock, keys.queue, keys.heartbeats],
            [token, leaseMs, WAITER_TTL_MS, channel, sessionKey],
          ),
        );
        if (result === ACQUIRED) return sentAt;
        queued = true;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw lockWaitTimeoutError(sessionKey, waitMs);
        const untilLeaseEnds = result > 0 ? result + 5 : POLL_MS;
        await pause(waiter, Math.min(remaining, untilLeaseEnds, POLL_MS) + Math.random() * JITTER_MS);
      }
    } catch (err) {
      if (queued) {
        await runScript(redis, LEAVE, [keys.queue, keys.heartbeats], [token, channel, sessionKey]).catch(
          (leaveErr: unknown) =>
            logger.warn({ err: leaveErr, sessionKey }, "could not leave the session lock queue"),
        );
      }
      throw err instanceof HermesError ? err : unavailable(sessionKey, err);
    } finally {
      group.delete(waiter);
      if (group.size === 0) waiters.delete(sessionKey);
    }
  }

  /** Renews the lease until stopped; aborts `controller` when the lock is (or may be) lost. */
  function keepLease({
    sessionKey,
    token,
    leaseMs,
    acquiredAt,
    controller,
  }: {
    sessionKey: string;
    token: string;
    leaseMs: number;
    acquiredAt: number;
    controller: AbortController;
  }) {
    const lockKey = keysFor(sessionKey).lock;
    const every = Math.max(10, Math.floor(leaseMs / 3));
    let stopped = false;
    let renewing = false;
    let watchdog: NodeJS.Timeout | undefined;

    const lose = (reason: string) => {
      if (stopped) return;
      stop();
      logger.warn({ sessionKey, reason }, "session lock lost while a turn was running");
      controller.abort(lockLostError(sessionKey));
    };
    // Fires before the lease can have ended, unless a renewal sent after `sentAt` succeeds.
    const armWatchdog = (sentAt: number) => {
      clearTimeout(watchdog);
      const due = sentAt + leaseMs - Math.floor(every / 2) - Date.now();
      watchdog = setTimeout(() => lose("no renewal within the lease"), Math.max(0, due));
      watchdog.unref();
    };
    const renew = async () => {
      if (stopped || renewing) return;
      renewing = true;
      const sentAt = Date.now();
      try {
        const ok = Number(await runScript(redis, RENEW, [lockKey], [token, leaseMs]));
        if (ok === 1) armWatchdog(sentAt);
        else lose("the lock key is gone or held by another token");
      } catch (err) {
        logger.warn({ sessionKey, err }, "session lock renewal failed; retrying");
      } finally {
        renewing = false;
      }
    };
    const interval = setInterval(renew, every);
    interval.unref();
    armWatchdog(acquiredAt);

    function stop() {
      stopped = true;
      clearInterval(interval);
      clearTimeout(watchdog);
    }
    return stop;
  }

  async function release(sessionKey: string, token: string): Promise<void> {
    try {
      await runScript(redis, RELEASE, [keysFor(sessionKey).lock], [token, channel, sessionKey]);
    } catch (err) {
      // The lease ends on its own; the next turn waits at most that long.
      logger.warn({ sessionKey, err }, "could not release the session lock");
    }
  }

  return {
    async withLock(sessionKey, fn, options = {}) {
      if (closed) throw storeClosedError();
      const { leaseMs, waitMs } = resolveLockOptions(options);
      const token = randomUUID();
      const acquiredAt = await acquire(sessionKey, token, leaseMs, waitMs);
      if (closed) {
        await release(sessionKey, token);
        throw storeClosedError();
      }
      const controller = new AbortController();
      holders.add(controller);
      const stop = keepLease({ sessionKey, token, leaseMs, acquiredAt, controller });
      try {
        return await fn(controller.signal);
      } finally {
        stop();
        holders.delete(controller);
        await release(sessionKey, token);
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const key of waiters.keys()) wake(key);
      for (const controller of holders) controller.abort(storeClosedError());
      await subscribed;
      if (subscriber) subscriber.disconnect();
    },
  };
}

function unavailable(sessionKey: string, cause: unknown): HermesError {
  return new HermesError(
    "storage_unavailable",
    `I could not reach the session store to take this thread's turn (session ${sessionKey}). Please try again.`,
    { cause },
  );
}

interface LuaScript {
  body: string;
  sha: string;
}

function lua(body: string): LuaScript {
  return { body, sha: createHash("sha1").update(body).digest("hex") };
}

/** EVALSHA with an EVAL fallback: the script body is sent once per server, not on every call. */
async function runScript(
  redis: RedisClient,
  script: LuaScript,
  keys: string[],
  args: Array<string | number>,
): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
    return await redis.eval(script.body, keys.length, ...keys, ...args);
  }
}
