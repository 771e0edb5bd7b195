/**
 * The `fetch` of Hermes' HTTP clients (the model's, through the openai SDK, and Slack's Web API
 * clients), on `node:http`/`node:https` with keep-alive agents instead of Node's built-in fetch
 * (undici). A chat completion through the openai SDK costs ~370 µs of CPU with it against ~570 µs
 * with the built-in one on the development machine (`node bench/model-fetch.ts`), which was the
 * largest single cost of a turn's runtime; Slack's calls (a working message, progress, the answer)
 * went through undici's fetch too. And the built-in fetch keeps each request reachable (a
 * `FinalizationRegistry` entry) until a full collection, which young-generation collections then
 * copy and promote.
 *
 * It does what these clients' requests need: text or byte bodies (the Web API's are form-encoded
 * text), the caller's `signal` (an abort rejects the request, or errors a body still arriving, with
 * the signal's reason, as `fetch` does), gzip / deflate / br bodies decoded. A body that is an event
 * stream is handed over as it arrives; any other is read whole before the response resolves. A
 * redirect is refused when the request says `redirect: "error"` (as the Web API client does), as the
 * built-in fetch would. Anything else goes to the built-in `fetch`, unchanged: other redirects, other
 * bodies (streams, forms: Slack's file uploads), URLs that are not http(s), and every request while a
 * proxy is configured in the environment (`HTTPS_PROXY`, `HTTP_PROXY`), which the built-in fetch may
 * honour.
 */
import http from "node:http";
import https from "node:https";
import { Readable } from "node:stream";
import zlib from "node:zlib";

/**
 * An idle kept-alive connection is closed after this long (ms), or 1 s before the server's own
 * announced limit (`Keep-Alive: timeout=N`) when that is sooner: a server that closes a connection as
 * a request is being sent on it fails that request ("socket hang up"). Many close after 5 s idle
 * (Node's servers, uvicorn's default under vLLM) and not all say so; 4 s is undici's default too.
 * Node's agent applies the server's hint only when it has a timeout of its own.
 */
export const IDLE_SOCKET_MS = 4000;

const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
  "https:": new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }),
};

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** A `fetch` for Hermes' HTTP clients (see the module comment); `fallback` serves what it does not. */
export function httpFetch(fallback: typeof fetch = globalThis.fetch): typeof fetch {
  const proxied = PROXY_VARIABLES.some((name) => process.env[name]);
  return (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
    const body = init?.body;
    if (
      proxied ||
      url === undefined ||
      !(url.startsWith("http://") || url.startsWith("https://")) ||
      !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)
    )
      return fallback(input, init);
    return send(new URL(url), init ?? {}, body ?? undefined, fallback);
  };
}

function send(
  url: URL,
  init: RequestInit,
  body: string | Uint8Array | undefined,
  fallback: typeof fetch,
): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<Response>((resolve, reject) => {
    let res: http.IncomingMessage | undefined;
    let settled = false;
    let retried = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      reject(err);
    };
    const onAbort = () => {
      const reason = abortReason(signal!);
      fail(reason);
      // A body still arriving errors with the reason, as the built-in fetch's does.
      res?.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      req.destroy();
    };
    // A kept-alive connection the server closed or reset as this request went out on it, before any
    // answer: a server closes connections it holds idle, so it had not taken this request; it goes once
    // more, on a new connection (Node's documented remedy; the callers retry connection errors anyway,
    // only later). Any other failure, a second one, or one after an answer began, is the caller's.
    const onError = (failed: http.ClientRequest, err: NodeJS.ErrnoException) => {
      if (!retried && !settled && !res && failed.reusedSocket && STALE_SOCKET.has(err.code ?? "")) {
        retried = true;
        req = open();
        return;
      }
      fail(err);
    };
    const open = () => {
      const r = (url.protocol === "https:" ? https : http).request(
        url,
        {
          method: init.method ?? "GET",
          headers: headersObject(init.headers),
          agent: agents[url.protocol as keyof typeof agents],
        },
        (incoming) => {
          res = incoming;
          const status = incoming.statusCode ?? 0;
          if (status >= 300 && status < 400 && incoming.headers.location) {
            incoming.resume();
            if (init.redirect === "error") {
              // As the built-in fetch rejects it (Slack's API never redirects: its client says so).
              fail(
                new TypeError("fetch failed", { cause: new Error(`unexpected redirect (HTTP ${status})`) }),
              );
              return;
            }
            // Redirects are rare for a model endpoint: the built-in fetch follows them as it always did.
            settled = true;
            signal?.removeEventListener("abort", onAbort);
            fallback(url.href, init).then(resolve, reject);
            return;
          }
          const headers = new Headers();
          const raw = incoming.rawHeaders;
          for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
          const decoded = decode(incoming, headers);
          decoded.on("error", fail);
          const responseInit = { status, statusText: incoming.statusMessage ?? "", headers };
          if ((headers.get("content-type") ?? "").includes("text/event-stream")) {
            settled = true;
            // The listener stays until the stream ends: an abort must still reach the body.
            decoded.once("close", () => signal?.removeEventListener("abort", onAbort));
            resolve(new Response(Readable.toWeb(decoded) as ReadableStream<Uint8Array>, responseInit));
            return;
          }
          const chunks: Buffer[] = [];
          decoded.on("data", (chunk: Buffer) => chunks.push(chunk));
          decoded.on("end", () => {
            if (settled) return;
            settled = true;
            signal?.removeEventListener("abort", onAbort);
            const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
            // 204 and 304 have no body; a Response refuses one for them.
            resolve(new Response(status === 204 || status === 304 ? null : all, responseInit));
          });
        },
      );
      r.on("error", (err) => onError(r, err));
      r.end(body);
      return r;
    };
    let req = open();
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The body as sent, or decoded when the server compressed it (its encoding headers then dropped). */
function decode(res: http.IncomingMessage, headers: Headers): Readable {
  const encoding = (headers.get("content-encoding") ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  // A connection lost mid-body errors `res` (ECONNRESET "aborted"); through a decoder, it errors that.
  if (!decoder) return res;
  headers.delete("content-encoding");
  headers.delete("content-length");
  res.on("error", (err) => decoder.destroy(err));
  return res.pipe(decoder);
}

/** How a request fails on a connection its server closed ("socket hang up") or reset as it went out. */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE"]);

function headersObject(h: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  if (h instanceof Headers) {
    h.forEach((value, key) => {
      out[key] = value;
    });
  } else if (Array.isArray(h)) {
    for (const [key, value] of h) out[key.toLowerCase()] = value;
  } else {
    for (const [key, value] of Object.entries(h))
      if (value !== undefined && value !== null) out[key.toLowerCase()] = String(value);
  }
  return out;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
