import type { IncomingMessage, ServerResponse } from "node:http";
import { sql } from "drizzle-orm";
import type { SlackServices } from "../slack/services.ts";

/** `GET /healthz` → 200 `{ok, db, redis, model}` when the database answers, 503 otherwise. */
export function healthRoute(s: SlackServices, modelInfo: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || !req.url?.startsWith("/healthz")) return false;
    const db = await s.db.db
      .execute(sql`select 1`)
      .then(() => "ok" as const)
      .catch(() => "down" as const);
    const redis = s.config.env.REDIS_URL
      ? await s.queue
          .counts()
          .then(() => "ok" as const)
          .catch(() => "down" as const)
      : ("in-process" as const);
    const ok = db === "ok" && redis !== "down";
    res.writeHead(ok ? 200 : 503, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok, db: `${s.db.kind}:${db}`, redis, model: modelInfo }));
    return true;
  };
}
