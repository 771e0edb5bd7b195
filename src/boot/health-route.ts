import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config.ts";
import type { McpServerStatus, McpToolSource } from "../mcp/mcp-tool-source.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { Storage } from "../storage.ts";
import { sql } from "../store/drizzle.ts";

/** A check that has not answered by then counts as down: a hung database must not hang `/healthz`. */
export const HEALTH_CHECK_TIMEOUT_MS = 1000;

type CheckState = "ok" | "down" | "timeout";

/**
 * Whether this process's queue worker takes jobs: `starting` until `process()` has its worker ready,
 * then `running` until `pause()` or `stop()`. A receiver has no worker (`/healthz` says
 * `enqueue-only`), so there the queue does not count towards readiness.
 */
export type QueueWorkerState = "starting" | "running" | "paused" | "stopped";

export interface QueueWorkerHealth {
  workerState(): QueueWorkerState;
}

/**
 * `queue` unchanged, plus `workerState()`: it follows the calls that start and stop the worker side,
 * which is what BullMQ's own `isRunning()` follows too, and needs no round trip to answer.
 */
export function watchQueueWorker<Q extends TurnQueue>(queue: Q): Q & QueueWorkerHealth {
  let state: QueueWorkerState = "starting";
  return {
    ...queue,
    async process(handler, options) {
      await queue.process(handler, options);
      if (state === "starting") state = "running";
    },
    pause() {
      state = "paused";
      return queue.pause();
    },
    stop(options) {
      state = "stopped";
      return queue.stop(options);
    },
    workerState: () => state,
  };
}

/**
 * `GET /healthz` → `{ok, db, redis, queue, model}`: 200 when the database answers, Redis too when
 * configured, and the queue worker runs where this process has one; 503 with `ok: false` otherwise.
 * 503 because load balancers and readiness probes (Kubernetes, ELB, nginx) read the status, not the
 * body: a degraded replica should get no Slack traffic, while Slack's retries bring the events back
 * to a healthy one. It is a readiness check, not
 * a liveness one: restarting a replica does not bring Postgres back, so point a liveness probe at
 * `GET /healthz?live`, which answers 200 `{ok: true, live: true}` as long as the process serves HTTP.
 *
 * Each check is bounded by `HEALTH_CHECK_TIMEOUT_MS`, and at most one probe of each service is in
 * flight: a hung database answers `timeout` quickly, and frequent probes do not pile up connections.
 *
 * With MCP servers configured, `mcp` gives each server's state and tool count (kept by its
 * connection, no probe); nothing more: /healthz is unauthenticated, and a server's error text, pid
 * and tool names are for the admin's `/hermes tools` and the log.
 * A server that is down never makes the answer 503: Hermes works without it, its tools answer
 * "unavailable", and taking the replica out of service would not bring the server back.
 */
export function healthRoute(
  s: {
    config: Config;
    storage: Pick<Storage, "db">;
    queue: TurnQueue;
    mcp?: Pick<McpToolSource, "health">;
  },
  modelInfo: string,
  /** The worker side of this process's queue; none in a receiver. */
  queue?: QueueWorkerHealth,
) {
  const db = boundedCheck(() => s.storage.db.db.execute(sql`select 1`));
  const redis = boundedCheck(() => s.queue.counts());
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || !req.url?.startsWith("/healthz")) return false;
    const url = new URL(req.url, "http://localhost");
    if (url.pathname !== "/healthz") return false;
    if (url.searchParams.has("live")) {
      respond(res, 200, { ok: true, live: true });
      return true;
    }
    const [dbState, redisState] = await Promise.all([
      db(),
      s.config.env.REDIS_URL ? redis() : Promise.resolve("in-process" as const),
    ]);
    const queueState = queue ? queue.workerState() : "enqueue-only";
    const ok =
      dbState === "ok" &&
      (redisState === "ok" || redisState === "in-process") &&
      (queueState === "running" || queueState === "enqueue-only");
    respond(res, ok ? 200 : 503, {
      ok,
      db: `${s.storage.db.kind}:${dbState}`,
      redis: redisState,
      queue: queueState,
      model: modelInfo,
      ...(s.mcp ? { mcp: mcpCounts(s.mcp.health()) } : {}),
    });
    return true;
  };
}

function respond(res: ServerResponse, status: number, body: Record<string, unknown>) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/** `probe` raced against the timeout; while an earlier probe is still pending, no new one starts. */
function boundedCheck(probe: () => Promise<unknown>): () => Promise<CheckState> {
  let inFlight: Promise<CheckState> | undefined;
  return () => {
    inFlight ??= probe().then(
      () => "ok" as const,
      () => "down" as const,
    );
    const current = inFlight;
    void current.finally(() => {
      if (inFlight === current) inFlight = undefined;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CheckState>((resolve) => {
      timer = setTimeout(() => resolve("timeout"), HEALTH_CHECK_TIMEOUT_MS);
    });
    return Promise.race([current, timeout]).finally(() => clearTimeout(timer));
  };
}

function mcpCounts(
  servers: Record<string, McpServerStatus>,
): Record<string, { state: string; tools: number }> {
  return Object.fromEntries(
    Object.entries(servers).map(([name, { state, tools }]) => [name, { state, tools }]),
  );
}
