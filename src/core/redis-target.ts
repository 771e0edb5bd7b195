import { Cluster, Redis, type RedisOptions } from "ioredis";

/** A connection to one Redis server or to a Redis Cluster (same commands; a key's slot picks the node). */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: `REDIS_URL`, and whether it names a node of a Redis Cluster
 * (`HERMES_REDIS_CLUSTER=on`: the URL is a seed, the client finds the other nodes from it).
 */
export interface RedisTarget {
  url: string;
  cluster: boolean;
}

/** Opens a connection to the target with these options (for a cluster, the options of each node's connection). */
export function openRedis(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  if (!target.cluster) return new Redis(target.url, options);
  const seed = new URL(target.url);
  const { lazyConnect, ...perNode } = options;
  const nodeOptions: RedisOptions = {
    ...perNode,
    ...(seed.username ? { username: decodeURIComponent(seed.username) } : {}),
    ...(seed.password ? { password: decodeURIComponent(seed.password) } : {}),
    ...(seed.protocol === "rediss:" ? { tls: {} } : {}),
  };
  return new Cluster([{ host: seed.hostname, port: Number(seed.port || 6379) }], {
    redisOptions: nodeOptions,
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    // A node that is still joining answers MOVED/TRYAGAIN; commands wait for the slots map instead of failing.
    enableOfflineQueue: true,
  });
}

/** A second connection to the same Redis (a subscriber, a blocking worker), with these options changed. */
export function duplicateRedis(client: RedisClient, options: RedisOptions = {}): RedisClient {
  if (client instanceof Cluster) {
    return client.duplicate(undefined, { redisOptions: { ...client.options.redisOptions, ...options } });
  }
  return client.duplicate(options);
}

/**
 * BullMQ's key prefix. Its scripts touch several keys of a queue at once, which a Redis Cluster only
 * allows within one hash slot: there the prefix is a hash tag (`{hermes}`), so every key of the queue
 * hashes to the same slot. A single server keeps the plain prefix (its existing keys stay where they are).
 */
export function queueKeyPrefix(prefix: string, cluster: boolean): string {
  return cluster ? `{${prefix}}` : prefix;
}
