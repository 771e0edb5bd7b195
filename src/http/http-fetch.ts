/**
 * The `fetch` of Hermes' HTTP clients (the model's, through the openai SDK, and Slack's Web API
 * clients): undici's request API on one shared keep-alive `Agent`, answers handed over as a
 * `Response`. Not undici's `fetch` (Node's built-in one): a chat completion through the openai SDK
 * costs about half as much CPU again with it (`node bench/model-fetch.ts`), the largest single cost of
 * a turn's runtime, and it keeps each request reachable (a `FinalizationRegistry` entry) until a full
 * collection.
 *
 * It serves what these clients' requests need: text or byte bodies (the Web API's are form-encoded
 * text), the caller's `signal` (undici rejects the request, or errors a body still arriving, with the
 * signal's reason, as `fetch` does), gzip / deflate / br bodies decoded. A body that is an event
 * stream is handed over as it arrives; any other is read whole before the response resolves. A
 * redirect is refused when the request says `redirect: "error"` (as the Web API client does), as the
 * built-in fetch would. Anything else goes to the built-in `fetch`, unchanged: other redirects, other bodies (streams, forms: Slack's file uploads), URLs that are not
 * http(s), and every request while a proxy is configured in the environment (`HTTPS_PROXY`,
 * `HTTP_PROXY`), which the built-in fetch may honour.
 */
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { Agent, buildConnector, Client, type Dispatcher, errors } from "undici";

/**
 * An idle kept-alive connection is closed after this long (ms), or 1 s before the server's own
 * announced limit (`Keep-Alive: timeout=N`) when that is sooner: a server that closes a connection as
 * a request is being sent on it fails that request. Many close after 5 s idle (Node's servers,
 * uvicorn's default under vLLM) and not all say so; 4 s is undici's default too.
 */
export const IDLE_SOCKET_MS = 4000;

/** How much sooner than the server's announced keep-alive limit an idle connection is closed. */
const BEFORE_SERVER_LIMIT_MS = 1000;

/**
 * Failures of connections that had already carried an answer: a server closes connections it holds
 * idle, so a request that met such a close or reset before any answer was not taken, and goes once
 * more (`send`). undici reports a close as a `SocketError` with the socket's byte counts, and a reset
 * as the socket's own error, which is marked here as it is raised.
 */
const staleFailures = new WeakSet<object>();
const connector = buildConnector({});

function connect(options: buildConnector.Options, callback: buildConnector.Callback): void {
  connector(options, (err, socket) => {
    if (socket)
      socket.prependListener("error", (e: unknown) => {
        if (typeof e === "object" && e !== null && socket.bytesRead > 0) staleFailures.add(e);
      });
    if (err) callback(err, null);
    else if (socket) callback(null, socket);
  });
}

/**
 * One agent for every client: connections to a host are shared by the model and Slack clients alike.
 * A request's own time limit is its caller's (the SDKs' timeouts and the turn's signal abort it), so
 * undici's header and body timeouts are off: a model may think longer than undici's 300 s default.
 */
const TIMEOUTS = { headersTimeout: 0, bodyTimeout: 0 } as const;
const agent = new Agent({
  keepAliveTimeout: IDLE_SOCKET_MS,
  keepAliveMaxTimeout: IDLE_SOCKET_MS,
  keepAliveTimeoutThreshold: BEFORE_SERVER_LIMIT_MS,
  connect,
  ...TIMEOUTS,
});

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

async function send(
  url: URL,
  init: RequestInit,
  body: string | Uint8Array | undefined,
  fallback: typeof fetch,
): Promise<Response> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  const request: Dispatcher.RequestOptions = {
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    // fetch upper-cases these few itself; any other method goes as given, as with fetch.
    method: normalizedMethod(init.method ?? "GET"),
    headers: headerPairs(init.headers),
    body,
    signal,
  };
  let answer: Dispatcher.ResponseData;
  try {
    answer = await agent.request(request);
  } catch (err) {
    if (!stale(err)) throw err;
    // Once more, on a connection of its own (the agent might pick another idle one); it closes after.
    const fresh = new Client(url.origin, { connect, ...TIMEOUTS });
    try {
      answer = await fresh.request(request);
    } finally {
      void fresh.close();
    }
  }
  const status = answer.statusCode;
  const headers = new Headers();
  for (const [key, value] of Object.entries(answer.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else if (value !== undefined) headers.append(key, value);
  }
  if (status >= 300 && status < 400 && headers.has("location")) {
    await answer.body.dump();
    // As the built-in fetch rejects it (Slack's API never redirects: its client says so).
    if (init.redirect === "error")
      throw new TypeError("fetch failed", { cause: new Error(`unexpected redirect (HTTP ${status})`) });
    // Redirects are rare for a model endpoint: the built-in fetch follows them as it always did.
    return fallback(url.href, init);
  }
  const decoded = decode(answer.body, headers);
  const responseInit = { status, statusText: answer.statusText, headers };
  if ((headers.get("content-type") ?? "").includes("text/event-stream"))
    return new Response(Readable.toWeb(decoded), responseInit);
  const chunks: Buffer[] = [];
  for await (const chunk of decoded) chunks.push(chunk);
  // 204 and 304 have no body; a Response refuses one for them.
  if (status === 204 || status === 304) return new Response(null, responseInit);
  return new Response(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), responseInit);
}

/** A close or reset, before any answer, of a connection that had carried one (see `staleFailures`). */
function stale(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  if (staleFailures.has(err)) return true;
  return err instanceof errors.SocketError && (err.socket?.bytesRead ?? 0) > 0;
}

/**
 * The body as sent, or decoded when the server compressed it (its encoding headers then dropped).
 * Decoded here with node:zlib: undici's own decompress interceptor is marked experimental in this
 * version and warns on the process's stderr when used.
 */
function decode(body: Readable, headers: Headers): Readable {
  const encoding = (headers.get("content-encoding") ?? "").trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? zlib.createGunzip()
      : encoding === "deflate"
        ? zlib.createInflate()
        : encoding === "br"
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return body;
  headers.delete("content-encoding");
  headers.delete("content-length");
  // An abort or a connection lost mid-body errors the body; through a decoder, it errors that.
  body.on("error", (err) => decoder.destroy(err));
  return body.pipe(decoder);
}

const NORMALIZED = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

function normalizedMethod(method: string): string {
  const upper = method.toUpperCase();
  return NORMALIZED.has(upper) ? upper : method;
}

/** The request's headers as name/value pairs, as undici takes them. */
function headerPairs(h: RequestInit["headers"]): string[] {
  const out: string[] = [];
  if (!h) return out;
  if (h instanceof Headers) for (const [key, value] of h) out.push(key, value);
  else if (Array.isArray(h)) for (const [key, value] of h) out.push(key, value);
  else
    for (const [key, value] of Object.entries(h))
      if (value !== undefined && value !== null) out.push(key, String(value));
  return out;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
