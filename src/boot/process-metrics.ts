import type { Config } from "../config.ts";
import type { HttpHandler } from "../http/route-server.ts";
import { createHermesMetrics, type HermesMetrics } from "../metrics/hermes-metrics.ts";
import { registerLiveGauges } from "../metrics/live-gauges.ts";
import { metricsRoute } from "../metrics/metrics-route.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { Storage } from "../storage.ts";
import { sql } from "../store/drizzle.ts";

/** This process's metrics registry: made first, so storage, Slack and the models record into it. */
export function processMetrics(config: Config): HermesMetrics {
  return createHermesMetrics({ prices: config.env.HERMES_MODEL_PRICES, model: config.model?.model });
}

/**
 * `GET /metrics` for this process, with the gauges read at scrape time: the queue's depth and oldest
 * job, and the pending approvals (one count on their status index).
 */
export function metricsRouteOf(
  metrics: HermesMetrics,
  s: { config: Config; queue: TurnQueue; storage: Pick<Storage, "db"> },
): HttpHandler {
  const { queue } = s;
  const db = s.storage.db.db;
  registerLiveGauges(metrics.registry, {
    queueCounts: () => queue.counts(),
    ...(queue.oldest ? { queueOldest: () => queue.oldest!() } : {}),
    pendingApprovals: async () => {
      const r = await db.execute<{ n: number | string }>(
        sql`select count(*)::int as n from approvals where status = 'pending'`,
      );
      return Number(r.rows[0]?.n ?? 0);
    },
  });
  return metricsRoute(metrics.registry, s.config.env.HERMES_METRICS_TOKEN);
}
