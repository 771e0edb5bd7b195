import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** An HTTP route (health, the sandbox page): true when it answered the request. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean> | boolean;

export interface RouteServer {
  port: number;
  stop(): Promise<void>;
}

/**
 * A small HTTP server for our own routes where Bolt serves none: Socket Mode (events come over the
 * socket) and worker processes (only `/healthz`). Anything no route takes gets a JSON 404.
 */
export async function startRouteServer(
  routes: HttpHandler[],
  port: number,
  host?: string,
): Promise<RouteServer> {
  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    for (const route of routes) if (await route(req, res)) return;
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ ok: false, error: "not_found" }));
  };
  const server: Server = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end("internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (host) server.listen(port, host, resolve);
    else server.listen(port, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
