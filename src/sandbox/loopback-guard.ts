import type { IncomingMessage, ServerResponse } from "node:http";

const LOOPBACK_NAMES = ["127.0.0.1", "localhost", "[::1]"];
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The sandbox listens on loopback, but a web page the person opens elsewhere can still reach it:
 * through DNS rebinding (`evil.example` re-resolved to 127.0.0.1, so the browser sends `Host:
 * evil.example`), or by posting across origins. So every request must name us in `Host` (a loopback
 * name or address with our port), and a request that changes something must not come from a foreign
 * `Origin` (no `Origin` at all is a non-browser client: the bot's Web API client, curl).
 * Returns why a request is refused, or undefined to serve it.
 */
export function whyForeign(req: IncomingMessage, port: number): string | undefined {
  const allowed = allowedHosts(port);
  const host = (req.headers.host ?? "").toLowerCase();
  if (!allowed.includes(host))
    return `Host "${printable(host)}" is not this sandbox; open it at http://127.0.0.1:${port}/`;
  const origin = req.headers.origin;
  if (origin !== undefined && !SAFE_METHODS.has(req.method ?? "GET")) {
    const ok = allowed.some((h) => origin.toLowerCase() === `http://${h}`);
    if (!ok) return `requests from origin "${printable(origin)}" may not act in this sandbox`;
  }
  return undefined;
}

/** Answers 403 with the reason when the request is foreign; true when it did. */
export function refuseForeign(req: IncomingMessage, res: ServerResponse, port: number): boolean {
  const why = whyForeign(req, port);
  if (!why) return false;
  const text = `Forbidden: ${why}.\n`;
  res.writeHead(403, {
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  });
  res.end(text);
  req.resume();
  return true;
}

function allowedHosts(port: number): string[] {
  // A browser leaves the port out of `Host` only when it is the scheme's default.
  return LOOPBACK_NAMES.flatMap((name) => (port === 80 ? [name, `${name}:80`] : [`${name}:${port}`]));
}

/** Header values are attacker-chosen: keep them short and printable in the answer. */
function printable(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, "?").slice(0, 100);
}
