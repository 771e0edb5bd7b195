import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";

/**
 * `GET /metrics`: the registry in Prometheus's text format. Open like `/healthz` unless `token` is
 * set; then only `Authorization: Bearer <token>` is answered, anything else gets 401.
 */
export function metricsRoute(registry: Registry, token?: string) {
  const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || !req.url?.startsWith("/metrics")) return false;
    const path = req.url.split("?", 1)[0];
    if (path !== "/metrics") return false;
    if (expected && !authorized(req.headers.authorization, expected)) {
      res.writeHead(401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer" });
      res.end("Send the metrics token as Authorization: Bearer <HERMES_METRICS_TOKEN>.\n");
      return true;
    }
    const body = await registry.metrics();
    res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" });
    res.end(body);
    return true;
  };
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  if (!header) return false;
  const got = Buffer.from(header);
  return got.length === expected.length && timingSafeEqual(got, expected);
}
