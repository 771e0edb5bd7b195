import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

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
export function startRouteServer(routes: HttpHandler[], port: number, host?: string): Promise<RouteServer> {
  return listenHttp(
    async (req, res) => {
      if (!(await serveRoutes(routes, req, res))) notFound(res);
    },
    port,
    host,
  );
}

/** Offers the request to each route in turn: true once one answered it. */
export async function serveRoutes(
  routes: HttpHandler[],
  req: IncomingMessage,
  res: ServerResponse,
): Promise<boolean> {
  for (const route of routes) if (await route(req, res)) return true;
  return false;
}

/** The JSON 404 for a request nothing takes. */
export function notFound(res: ServerResponse): void {
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ ok: false, error: "not_found" }));
}

/**
 * An HTTP server running `handle` for each request on `port` (`host` limits where it listens); a
 * handler that throws answers 500 if nothing was sent yet. `stop` closes every open connection.
 */
export async function listenHttp(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  port: number,
  host?: string,
  onError?: (err: unknown, req: IncomingMessage) => void,
): Promise<RouteServer> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      onError?.(err, req);
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      res.end("internal error");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    if (host) server.listen(port, host, resolve);
    else server.listen(port, resolve);
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address ? address.port : port,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
