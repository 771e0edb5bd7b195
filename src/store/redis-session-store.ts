import { Redis } from "ioredis";
import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { RedisClient } from "../core/redis-target.ts";
import { createRedisSessionLock } from "./session-lock.ts";
import { parseStoredMessages, type SessionStore, sessionTtlMs, storeClosedError } from "./session-store.ts";

export interface RedisSessionStoreOptions {
  /** A connected ioredis client (left open on `close()`), or a URL (the store opens and closes it). */
  redis: RedisClient | string;
  /** Prepended to every key and to the lock notification channel. Default `hermes:`. */
  keyPrefix?: string;
  /** Sliding TTL of a thread's history; each load or save renews it. Default 7 days. */
  ttlSeconds?: number;
  logger: Logger;
}

/**
 * Sessions for production: history as one JSON string per thread (`<prefix>session:<key>`, renewed
 * with GETEX/SET … PX), and the turn lock of `session-lock.ts`. Redis is a cache here: a lost history
 * loads as `found: false`, and nothing that must survive lives only in Redis.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { logger } = options;
  const keyPrefix = options.keyPrefix ?? "hermes:";
  const ttlMs = sessionTtlMs(options.ttlSeconds);
  const ownsClient = typeof options.redis === "string";
  const redis: RedisClient = typeof options.redis === "string" ? new Redis(options.redis) : options.redis;
  // ioredis reconnects by itself; without a listener its connection errors go to stderr unlogged.
  if (ownsClient)
    redis.on("error", (err: unknown) => logger.warn({ err }, "session store Redis connection error"));
  const lock = createRedisSessionLock({ redis, keyPrefix, logger });
  let closed = false;

  const sessionKeyOf = (sessionKey: string) => `${keyPrefix}session:${sessionKey}`;

  async function call<T>(sessionKey: string, command: () => Promise<T>): Promise<T> {
    if (closed) throw storeClosedError();
    try {
      return await command();
    } catch (cause) {
      logger.error({ err: cause, sessionKey }, "session store command failed");
      throw new HermesError(
        "storage_unavailable",
        "I cannot reach the conversation history right now; please try again in a moment.",
        { cause },
      );
    }
  }

  return {
    async load(sessionKey) {
      const raw = await call(sessionKey, () => redis.getex(sessionKeyOf(sessionKey), "PX", ttlMs));
      if (raw === null) return { messages: [], found: false };
      const loaded = parseStoredMessages(raw);
      if (loaded.unreadable)
        logger.warn(
          { sessionKey, problem: loaded.unreadable },
          "stored session history is unreadable; starting with an empty history",
        );
      return loaded;
    },

    async save(sessionKey, messages) {
      const json = JSON.stringify(messages);
      await call(sessionKey, () => redis.set(sessionKeyOf(sessionKey), json, "PX", ttlMs));
    },

    async delete(sessionKey) {
      await call(sessionKey, () => redis.del(sessionKeyOf(sessionKey)));
    },

    withLock(sessionKey, fn, lockOptions) {
      return lock.withLock(sessionKey, fn, lockOptions);
    },

    async close() {
      if (closed) return;
      closed = true;
      await lock.close();
      if (ownsClient) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
