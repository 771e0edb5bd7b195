import { errorMessage, HermesError } from "../../core/errors.ts";
import { scrubSecrets } from "./header-secrets.ts";

/** A response larger than this is cut while reading: the registry caps what the model sees anyway. */
export const MAX_RESPONSE_BYTES = 2_000_000;
const ERROR_EXCERPT_CHARS = 300;

export interface HttpCallInput {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Sent as JSON when present. */
  body?: Record<string, unknown>;
  signal: AbortSignal;
  /** Header secrets, scrubbed from every result and error. */
  secrets: readonly string[];
}

/**
 * One request with `fetch`. 2xx → the body as text (JSON pretty-printed). Anything else throws a
 * `tool_failed` HermesError with the status and a short excerpt, so the runtime records a failure.
 * An abort (timeout, cancelled turn) rethrows the signal's reason.
 */
export async function callHttp(input: HttpCallInput): Promise<string> {
  const { method, url, signal, secrets } = input;
  const headers = new Headers(input.headers);
  if (!headers.has("accept")) headers.set("accept", "application/json, text/plain;q=0.9, */*;q=0.5");
  let body: string | undefined;
  if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const where = `${method} ${displayUrl(url)}`;

  let response: Response;
  try {
    response = await fetchSameOrigin(url, { method, headers, body, signal });
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    if (err instanceof HermesError) throw err;
    throw new HermesError("tool_failed", scrubSecrets(`${where} failed: ${networkReason(err)}.`, secrets), {
      cause: err,
    });
  }

  let text: string;
  try {
    text = await readLimited(response, MAX_RESPONSE_BYTES);
  } catch (err) {
    if (signal.aborted) throw signal.reason ?? err;
    throw new HermesError("tool_failed", scrubSecrets(`${where}: reading the response failed.`, secrets), {
      cause: err,
    });
  }

  if (!response.ok) {
    // Scrub before cutting: a cut through a secret would leave a piece the scrubber cannot match.
    const excerpt = scrubSecrets(text, secrets).replace(/\s+/g, " ").trim().slice(0, ERROR_EXCERPT_CHARS);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    throw new HermesError("tool_failed", `${where} answered HTTP ${status}${excerpt ? `: ${excerpt}` : ""}`);
  }
  if (text.trim() === "") return `HTTP ${response.status} (empty body)`;
  return scrubSecrets(prettyIfJson(text, response.headers.get("content-type")), secrets);
}

const MAX_REDIRECTS = 5;

/**
 * Follows redirects only within the API's origin: fetch drops `Authorization` on a cross-origin
 * redirect but not other credential headers (`X-Api-Key`), so those are never sent elsewhere.
 */
async function fetchSameOrigin(url: string, init: RequestInit): Promise<Response> {
  let current = url;
  let { method, body } = init;
  for (let hop = 0; ; hop++) {
    const response = await fetch(current, { ...init, method, body, redirect: "manual" });
    const location = response.headers.get("location");
    if (response.status < 300 || response.status > 399 || !location) return response;
    const next = new URL(location, current);
    if (next.origin !== new URL(url).origin || hop >= MAX_REDIRECTS) {
      await response.body?.cancel();
      const why =
        hop >= MAX_REDIRECTS ? "too many redirects" : `a redirect to ${next.origin} was not followed`;
      throw new HermesError("tool_failed", `${init.method} ${displayUrl(url)}: ${why}.`);
    }
    await response.body?.cancel();
    // 303 (and, as browsers do, 301/302 after a POST) continue as a GET without the body.
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === "POST")
    ) {
      method = "GET";
      body = undefined;
    }
    current = next.toString();
  }
}

function prettyIfJson(text: string, contentType: string | null): string {
  if (!contentType || !/[/+]json\b/i.test(contentType)) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Origin and path: the query may carry arguments that are noise in an error line. */
function displayUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

/** `fetch failed` says nothing; the cause (ECONNREFUSED, ENOTFOUND, a TLS error) does. */
function networkReason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause && typeof cause === "object") {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string") return code;
    return errorMessage(cause);
  }
  return errorMessage(err);
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      text += decoder.decode(value.subarray(0, value.byteLength - (bytes - maxBytes)), { stream: true });
      await reader.cancel();
      return `${text}${decoder.decode()}\n…[response cut at ${maxBytes} bytes]`;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
