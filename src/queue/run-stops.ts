import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { duplicateRedis, type RedisClient } from "../core/redis-target.ts";

/**
 * How long a stop stays asked for: a run of the thread that starts its work (or resumes) within this
 * long after the stop, but began before it, is stopped as it starts. Longer than a queue's hand-over.
 */
export const STOP_KEPT_MS = 10 * 60_000;

/**
 * The user's Stop on a thread's run, from the process that took Slack's event to the worker running
 * the run. `request` asks every run of the thread that began before now to stop; `watch` gives a
 * run's signal, aborted by such a request (made during the run, or before it resumes).
 */
export interface RunStops {
  request(sessionKey: string): Promise<void>;
  /** `since`: when the run began (ms); a stop asked for earlier is not this run's. Call `dispose` when it ends. */
  watch(sessionKey: string, since: number): { signal: AbortSignal; dispose(): void };
  close(): Promise<void>;
}

/** The reason a stopped run's signal carries. */
export class RunStoppedError extends Error {
  constructor() {
    super("stopped by the user");
    this.name = "RunStoppedError";
  }
}

/** The watchers and the recent stops of one process. */
function localStops(now: () => number) {
  const watchers = new Map<string, Set<{ controller: AbortController; since: number }>>();
  const stopped = new Map<string, number>();
  const forget = () => {
    for (const [key, at] of stopped) if (now() - at > STOP_KEPT_MS) stopped.delete(key);
  };
  return {
    stop(sessionKey: string, at: number) {
      forget();
      stopped.set(sessionKey, Math.max(at, stopped.get(sessionKey) ?? 0));
      for (const w of watchers.get(sessionKey) ?? [])
        if (w.since <= at) w.controller.abort(new RunStoppedError());
    },
    watch(sessionKey: string, since: number) {
      const w = { controller: new AbortController(), since };
      const at = stopped.get(sessionKey);
      if (at !== undefined && since <= at && now() - at <= STOP_KEPT_MS)
        w.controller.abort(new RunStoppedError());
      const set = watchers.get(sessionKey) ?? new Set();
      watchers.set(sessionKey, set);
      set.add(w);
      return {
        signal: w.controller.signal,
        dispose() {
          set.delete(w);
          if (set.size === 0) watchers.delete(sessionKey);
        },
      };
    },
  };
}

/** One process (the in-memory queue): the stop reaches the run directly. */
export function createMemoryRunStops(now: () => number = Date.now): RunStops {
  const local = localStops(now);
  return {
    async request(sessionKey) {
      local.stop(sessionKey, now());
    },
    watch: (sessionKey, since) => local.watch(sessionKey, since),
    async close() {},
  };
}

/**
 * Several processes (Redis): a stop is published to every process and kept for `STOP_KEPT_MS` in a
 * key, so a worker that picks the run up (or resumes it) a moment later still sees it.
 */
export function createRedisRunStops(o: {
  redis: RedisClient;
  keyPrefix: string;
  logger: Logger;
  now?: () => number;
}): RunStops {
  const now = o.now ?? Date.now;
  const local = localStops(now);
  const channel = `${o.keyPrefix}run-stop`;
  const keyOf = (sessionKey: string) => `${o.keyPrefix}run-stop:{${sessionKey}}`;
  const subscriber = duplicateRedis(o.redis);
  subscriber.on("error", (err) => o.logger.warn({ err: err.message }, "run-stop subscriber error"));
  subscriber.on("message", (_channel: string, text: string) => {
    try {
      const { sessionKey, at } = JSON.parse(text) as { sessionKey: string; at: number };
      local.stop(sessionKey, at);
    } catch (err) {
      o.logger.warn({ err: errorMessage(err) }, "unreadable run-stop message");
    }
  });
  const subscribed = subscriber.subscribe(channel).catch((err: unknown) => {
    o.logger.warn({ err: errorMessage(err) }, "could not subscribe to run stops");
  });
  return {
    async request(sessionKey) {
      const at = now();
      await o.redis.set(keyOf(sessionKey), String(at), "PX", STOP_KEPT_MS);
      await o.redis.publish(channel, JSON.stringify({ sessionKey, at }));
    },
    watch(sessionKey, since) {
      const watched = local.watch(sessionKey, since);
      // A stop published before this process subscribed, or before the run came here, is in the key.
      void o.redis
        .get(keyOf(sessionKey))
        .then((at) => {
          if (at !== null) local.stop(sessionKey, Number(at));
        })
        .catch(() => undefined);
      return watched;
    },
    async close() {
      await subscribed;
      await subscriber.quit().catch(() => subscriber.disconnect());
    },
  };
}
