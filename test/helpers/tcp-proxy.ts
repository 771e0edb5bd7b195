import { createServer, type Server, Socket } from "node:net";

/**
 * A TCP proxy on a free loopback port in front of a real service (the shared Postgres, the Slack
 * emulator), so a test can make that service vanish for one process without touching the service
 * itself (other tests use it):
 * - `cut()`: open connections are reset and new ones are refused at once (the service is down);
 * - `hang()`: new and open connections stay up but nothing passes either way (the service hangs);
 * - `restore()`: connections are forwarded again (only new ones for a cut; held bytes flow after a hang).
 */
export interface TcpProxy {
  port: number;
  /** `target` with its host and port replaced by the proxy's (for a URL like postgres://…). */
  url(target: string): string;
  cut(): void;
  hang(): void;
  restore(): void;
  readonly mode: "open" | "cut" | "hang";
  /** Connections accepted so far (tests check that a client really went through the proxy). */
  readonly accepted: number;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

/**
 * `listen` picks the proxy's own address (default: a free port on 127.0.0.1). A server that checks
 * `Host` against its own port (the sandbox's loopback guard) can be proxied from `::1` on the same
 * port number: `{ host: "::1", port: targetPort }`.
 */
export async function startTcpProxy(
  target: { host: string; port: number },
  listen: { host: string; port: number } = { host: "127.0.0.1", port: 0 },
): Promise<TcpProxy> {
  let mode: TcpProxy["mode"] = "open";
  let accepted = 0;
  const pairs = new Set<Pair>();

  const pipe = (pair: Pair) => {
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
  };
  const unpipe = (pair: Pair) => {
    pair.client.unpipe(pair.upstream);
    pair.upstream.unpipe(pair.client);
    // Unpiped streams stop reading: bytes wait in the kernel until the proxy is restored.
    pair.client.pause();
    pair.upstream.pause();
  };

  const server: Server = createServer((client) => {
    accepted++;
    if (mode === "cut") {
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    const pair: Pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    // Writes before the upstream connects are buffered by the socket.
    upstream.connect(target.port, target.host);
    if (mode === "open") pipe(pair);
    else client.pause();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  const port = (server.address() as { port: number }).port;
  const hostname = listen.host.includes(":") ? `[${listen.host}]` : listen.host;

  return {
    port,
    url(targetUrl) {
      const u = new URL(targetUrl);
      u.hostname = hostname;
      u.port = String(port);
      return u.toString();
    },
    cut() {
      mode = "cut";
      for (const pair of [...pairs]) {
        pair.client.resetAndDestroy();
        pair.upstream.destroy();
        pairs.delete(pair);
      }
    },
    hang() {
      mode = "hang";
      for (const pair of pairs) unpipe(pair);
    },
    restore() {
      const was = mode;
      mode = "open";
      if (was === "hang")
        for (const pair of pairs) {
          pipe(pair);
          pair.client.resume();
          pair.upstream.resume();
        }
    },
    get mode() {
      return mode;
    },
    get accepted() {
      return accepted;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
