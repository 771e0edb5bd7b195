import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  ADMIN_CLI_PATH,
  type CliResult,
  type ForwardedCli,
  forwardedCliSchema,
} from "../cli/commands/forwarded-cli.ts";
import type { Logger } from "../core/logger.ts";
import type { HttpHandler } from "../http/route-server.ts";

/** A forwarded command's body: arguments and at most a checkpoint file's worth of lines. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface AdminCliRouteOptions {
  /** The token written with the data dir's lock (mode 0600): whoever can read it may run commands. */
  token: string;
  /** The port this server listens on, once it does: `Host` must name it. */
  port: () => number | undefined;
  run: (request: ForwardedCli) => Promise<CliResult>;
  logger: Logger;
}

/**
 * `POST /_hermes/cli`: `npm run runs` and `npm run audit`, typed on this machine while this server
 * owns the embedded data, run here against the live store. Only from loopback, with `Host` naming a
 * loopback address and this port (a DNS-rebound page names its own host), without an `Origin` (no
 * browser), and with the lock's token (`Authorization: Bearer …`, compared in constant time).
 */
export function adminCliRoute(o: AdminCliRouteOptions): HttpHandler {
  const expected = digest(o.token);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = req.url ?? "";
    if (url !== ADMIN_CLI_PATH && !url.startsWith(`${ADMIN_CLI_PATH}?`)) return false;
    const port = o.port();
    if (!isLoopback(req.socket.remoteAddress)) return refuse(req, res, 403, "only from this machine");
    if (port === undefined || !loopbackHosts(port).includes((req.headers.host ?? "").toLowerCase()))
      return refuse(req, res, 403, "Host must name this server on a loopback address");
    if (req.headers.origin !== undefined) return refuse(req, res, 403, "not from a browser");
    if (req.method !== "POST") return refuse(req, res, 405, "POST only");
    const given = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (given === undefined || !timingSafeEqual(digest(given), expected))
      return refuse(req, res, 401, "wrong or missing token");
    const body = await readBody(req);
    if (body === undefined) return refuse(req, res, 413, "body too large");
    const parsed = forwardedCliSchema.safeParse(parseJson(body));
    if (!parsed.success) return refuse(req, res, 400, "not a command");
    const result = await o.run(parsed.data);
    // The arguments may hold what a call was made with (check-args): the log names the command only.
    o.logger.info(
      { cli: parsed.data.cli, command: parsed.data.argv[0], code: result.code },
      "ran a CLI command for this machine",
    );
    respond(res, 200, result);
    return true;
  };
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  return v4 === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

function loopbackHosts(port: number): string[] {
  return ["127.0.0.1", "localhost", "[::1]"].flatMap((name) =>
    port === 80 ? [name, `${name}:80`] : [`${name}:${port}`],
  );
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function refuse(req: IncomingMessage, res: ServerResponse, status: number, why: string): true {
  respond(res, status, { ok: false, error: why });
  req.resume();
  return true;
}

function respond(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}
