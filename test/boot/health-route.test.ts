import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthRoute, watchQueueWorker } from "../../src/boot/health-route.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { type RouteServer, startRouteServer } from "../../src/http/route-server.ts";
import type { McpServerStatus } from "../../src/mcp/mcp-tool-source.ts";
import { createBullmqTurnQueue } from "../../src/queue/bullmq-turn-queue.ts";
import { createMemoryTurnQueue } from "../../src/queue/memory-turn-queue.ts";
import type { TurnQueue } from "../../src/queue/turn-queue.ts";
import { openTestStore, type TestStore } from "../helpers/pg.ts";
import { connectTestRedis, deleteKeysWithPrefix, testRedisUrl } from "../helpers/redis.ts";

/**
 * `/healthz` covers the queue as well as the database and Redis: a process with a queue worker is
 * ready only while that worker takes jobs; a receiver, which has none, is ready without one.
 */
describe("/healthz and the queue worker", () => {
  let store: TestStore;
  const servers: RouteServer[] = [];
  const queues: TurnQueue[] = [];
  const redisPrefix = `hh${Math.random().toString(36).slice(2, 10)}`;

  beforeAll(async () => {
    store = await openTestStore("pglite");
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const queue of queues) await queue.stop({ timeoutMs: 1000 });
    await store?.cleanup();
    const redis = connectTestRedis();
    await deleteKeysWithPrefix(redis, `${redisPrefix}:`).finally(() => redis.disconnect());
  });

  async function serve(
    queue: TurnQueue,
    env: Record<string, string>,
    worker: ReturnType<typeof watchQueueWorker> | undefined,
    mcp?: { health(): Record<string, McpServerStatus> },
  ) {
    const services = {
      config: loadConfig(env),
      storage: { db: store.handle },
      queue,
      ...(mcp ? { mcp } : {}),
    };
    const server = await startRouteServer([healthRoute(services, "command mode", worker)], 0, "127.0.0.1");
    servers.push(server);
    return async () => {
      const r = await fetch(`http://127.0.0.1:${server.port}/healthz`);
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
  }

  it("in-process queue: 503 until the worker runs, 200 while it does, 503 once it pauses or stops", async () => {
    const queue = watchQueueWorker(createMemoryTurnQueue({ logger: silentLogger() }));
    queues.push(queue);
    const health = await serve(queue, {}, queue);

    expect(await health()).toEqual({
      status: 503,
      body: { ok: false, db: "pglite:ok", redis: "in-process", queue: "starting", model: "command mode" },
    });
    await queue.process(async () => undefined, { concurrency: 2 });
    expect(await health()).toMatchObject({ status: 200, body: { ok: true, queue: "running" } });
    await queue.pause();
    expect(await health()).toMatchObject({ status: 503, body: { ok: false, queue: "paused" } });
    await queue.stop({ timeoutMs: 100 });
    expect(await health()).toMatchObject({ status: 503, body: { ok: false, queue: "stopped" } });
  });

  it("BullMQ on Redis: the worker's state next to Redis's own check", async () => {
    const bullmq = createBullmqTurnQueue({
      redis: testRedisUrl,
      logger: silentLogger(),
      prefix: redisPrefix,
    });
    const queue = watchQueueWorker(bullmq);
    queues.push(queue);
    const health = await serve(queue, { REDIS_URL: testRedisUrl }, queue);

    expect(await health()).toMatchObject({ status: 503, body: { redis: "ok", queue: "starting" } });
    await queue.process(async () => undefined);
    expect(await health()).toEqual({
      status: 200,
      body: { ok: true, db: "pglite:ok", redis: "ok", queue: "running", model: "command mode" },
    });
    await queue.stop({ timeoutMs: 1000 });
    const stopped = await health();
    expect(stopped).toMatchObject({ status: 503, body: { ok: false, queue: "stopped" } });
    // Its own Redis connection is closed too now.
    expect(["down", "timeout"]).toContain(stopped.body.redis);
  });

  it("a receiver (no worker) is ready on db and Redis alone, and says its queue is enqueue-only", async () => {
    const queue = createBullmqTurnQueue({ redis: testRedisUrl, logger: silentLogger(), prefix: redisPrefix });
    queues.push(queue);
    const health = await serve(queue, { REDIS_URL: testRedisUrl }, undefined);
    expect(await health()).toEqual({
      status: 200,
      body: { ok: true, db: "pglite:ok", redis: "ok", queue: "enqueue-only", model: "command mode" },
    });
  });

  it("MCP servers: each one's state and tool count only (no error text, pid or tool names), and one that is down does not make the process unready", async () => {
    const queue = watchQueueWorker(createMemoryTurnQueue({ logger: silentLogger() }));
    queues.push(queue);
    await queue.process(async () => undefined);
    const since = new Date().toISOString();
    const servers: Record<string, McpServerStatus> = {
      files: {
        state: "ready",
        tools: 14,
        since,
        pid: 4242,
        skipped: [{ tool: "delete_all", why: "collides" }],
      },
      tracker: { state: "down", tools: 0, error: "spawn tracker-mcp ENOENT", since, skipped: [] },
    };
    const health = await serve(queue, {}, queue, { health: () => servers });
    expect(await health()).toEqual({
      status: 200,
      body: {
        ok: true,
        db: "pglite:ok",
        redis: "in-process",
        queue: "running",
        model: "command mode",
        mcp: { files: { state: "ready", tools: 14 }, tracker: { state: "down", tools: 0 } },
      },
    });
  });
});
