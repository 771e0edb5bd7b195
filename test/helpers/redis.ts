import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

/** Tests share one Redis with other test files: each file uses its own prefix and deletes only that. */
export const testRedisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export function uniqueRedisPrefix(label: string): string {
  return `hermes:test:${label}:${randomUUID().slice(0, 8)}:`;
}

export function connectTestRedis(): Redis {
  return new Redis(testRedisUrl, { maxRetriesPerRequest: 2 });
}

/** Deletes every key under `prefix` (never FLUSHDB: other files use the same database). */
export async function deleteKeysWithPrefix(redis: Redis, prefix: string): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
  let cursor = "0";
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", pattern, "COUNT", 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== "0");
  return deleted;
}
