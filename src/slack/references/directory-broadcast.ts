import { randomUUID } from "node:crypto";
import type { App } from "@slack/bolt";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { openRedis, type RedisClient } from "../../core/redis-target.ts";
import { DIRECTORY_EVENTS } from "./directory-events.ts";
import type { WorkspaceDirectory } from "./workspace-directory.ts";

/** What a field of a published event may hold; anything else is left out. */
type Shape = "string" | "boolean" | "number" | { [field: string]: Shape };

const USER: Shape = {
  id: "string",
  name: "string",
  real_name: "string",
  tz: "string",
  is_bot: "boolean",
  deleted: "boolean",
  profile: { display_name: "string", real_name: "string" },
};
const CHANNEL: Shape = {
  id: "string",
  name: "string",
  is_private: "boolean",
  is_group: "boolean",
  is_im: "boolean",
  is_mpim: "boolean",
};
const SUBTEAM: Shape = { id: "string", handle: "string", name: "string", date_delete: "number" };

/** Each directory event's one field the directory reads (`directory-events.ts`), and its shape. */
const CARRIES: Readonly<Record<string, { field: "user" | "channel" | "subteam"; shape: Shape | "id" }>> = {
  user_change: { field: "user", shape: USER },
  team_join: { field: "user", shape: USER },
  channel_created: { field: "channel", shape: CHANNEL },
  channel_rename: { field: "channel", shape: CHANNEL },
  group_rename: { field: "channel", shape: CHANNEL },
  channel_archive: { field: "channel", shape: "id" },
  group_archive: { field: "channel", shape: "id" },
  channel_deleted: { field: "channel", shape: "id" },
  group_deleted: { field: "channel", shape: "id" },
  channel_unarchive: { field: "channel", shape: "id" },
  group_unarchive: { field: "channel", shape: "id" },
  subteam_created: { field: "subteam", shape: SUBTEAM },
  subteam_updated: { field: "subteam", shape: SUBTEAM },
};

function pick(value: unknown, shape: Shape): unknown {
  if (typeof shape === "string") return typeof value === shape ? value : undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries(shape)) {
    const kept = pick((value as Record<string, unknown>)[field], inner);
    if (kept !== undefined) out[field] = kept;
  }
  return out;
}

/**
 * A directory event cut down to what the directory reads (ids, names, flags: no email, phone or
 * anything else Slack sends), or undefined when it is not a directory event or names no id.
 */
export function directoryEventFields(type: string, event: unknown): Record<string, unknown> | undefined {
  const carries = Object.hasOwn(CARRIES, type) ? CARRIES[type] : undefined;
  if (!carries || typeof event !== "object" || event === null) return undefined;
  const value = (event as Record<string, unknown>)[carries.field];
  const kept = carries.shape === "id" ? pick(value, "string") : pick(value, carries.shape);
  const id = carries.shape === "id" ? kept : (kept as { id?: unknown } | undefined)?.id;
  if (typeof id !== "string" || id === "") return undefined;
  return { type, [carries.field]: kept };
}

export interface DirectoryBroadcastOptions {
  redisUrl: string;
  /** `HERMES_REDIS_CLUSTER=on`: `redisUrl` is a node of a Redis Cluster. */
  cluster?: boolean;
  /** `HERMES_REDIS_PREFIX`: the channel is `<prefix>:directory`, so deployments sharing a Redis stay apart. */
  prefix: string;
  directory: WorkspaceDirectory;
  logger: Logger;
}

export interface DirectoryBroadcast {
  /** Adds Bolt listeners that publish each directory event this process receives. */
  publishFrom(app: App): void;
  /** Publishes one event (what `publishFrom`'s listeners call); never throws, failures are logged. */
  publish(type: string, event: unknown): Promise<void>;
  close(): Promise<void>;
}

/**
 * Slack sends a directory event (`directory-events.ts`) to the one process that receives it; every
 * other process's directory learns it here, over Redis pub/sub on `<prefix>:directory`: a process
 * that receives Slack's events publishes what each directory event changes (ids, names and flags
 * only), and every process with a directory applies what the others published (its own it has
 * applied already). A message that is not a directory event is logged and ignored. Redis down:
 * publishing fails with a warning and the event is still applied where it was received; the other
 * processes catch up at their next full re-list. The subscriber has its own connection (a
 * subscribed connection sends nothing else); the publisher connects at the first publish.
 */
export function startDirectoryBroadcast(o: DirectoryBroadcastOptions): DirectoryBroadcast {
  const channel = `${o.prefix}:directory`;
  const origin = randomUUID();
  const logger = o.logger.child({ component: "directory-broadcast" });
  let closed = false;

  const connection = (
    role: string,
    options: { lazyConnect: boolean; maxRetriesPerRequest: number | null },
  ) => {
    const redis = openRedis({ url: o.redisUrl, cluster: o.cluster ?? false }, options);
    // One warning per outage, not one per reconnect attempt.
    let down = false;
    redis.on("error", (err: Error) => {
      if (!down) logger.warn({ err: err.message, role }, "directory broadcast: Redis is unreachable");
      down = true;
    });
    redis.on("ready", () => {
      if (down) logger.info({ role }, "directory broadcast: Redis reachable again");
      down = false;
    });
    return redis;
  };

  // Subscribing waits for Redis (no retry limit); once subscribed, ioredis subscribes again after a reconnect.
  const subscriber = connection("subscriber", { lazyConnect: false, maxRetriesPerRequest: null });
  let publisher: RedisClient | undefined;

  subscriber.on("message", (_channel: string, message: string) => void receive(message));
  subscriber.subscribe(channel).catch((err: unknown) => {
    if (!closed) logger.warn({ err: errorMessage(err) }, "directory broadcast: could not subscribe");
  });

  async function receive(message: string): Promise<void> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      parsed = undefined;
    }
    const m = (parsed ?? {}) as { from?: unknown; type?: unknown; event?: unknown };
    const fields =
      typeof m.from === "string" && typeof m.type === "string"
        ? directoryEventFields(m.type, m.event)
        : undefined;
    if (!fields) {
      logger.warn({ channel, bytes: message.length }, "directory broadcast: ignored a malformed message");
      return;
    }
    if (m.from === origin) return;
    const type = m.type as string;
    try {
      await DIRECTORY_EVENTS[type]?.(fields, o.directory);
    } catch (err) {
      logger.warn({ err: errorMessage(err), type }, "directory broadcast: could not apply an event");
    }
  }

  async function publish(type: string, event: unknown): Promise<void> {
    const fields = directoryEventFields(type, event);
    if (!fields || closed) return;
    publisher ??= connection("publisher", { lazyConnect: true, maxRetriesPerRequest: 2 });
    try {
      await publisher.publish(channel, JSON.stringify({ from: origin, type, event: fields }));
    } catch (err) {
      logger.warn({ err: errorMessage(err), type }, "directory broadcast: could not publish an event");
    }
  }

  return {
    publish,
    publishFrom(app) {
      for (const type of Object.keys(DIRECTORY_EVENTS))
        app.event(type, async ({ event }) => {
          // Not awaited: Redis being slow or down never holds Bolt's listener.
          void publish(type, event);
        });
    },
    async close() {
      closed = true;
      subscriber.disconnect();
      publisher?.disconnect();
    },
  };
}
