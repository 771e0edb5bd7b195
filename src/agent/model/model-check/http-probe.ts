/** A body larger than this is cut: the probes only read small JSON documents. */
const MAX_BODY_BYTES = 1024 * 1024;

export type HttpAnswer =
  | {
      ok: true;
      status: number;
      /** Header names lower-cased. */
      headers: Record<string, string>;
      text: string;
      /** The parsed body, or undefined when it is not JSON. */
      json: unknown;
      ms: number;
    }
  | { ok: false; error: string; timedOut: boolean; ms: number };

export interface HttpProbeOptions {
  url: string;
  method?: "GET" | "POST";
  body?: unknown;
  apiKey?: string;
  timeoutMs: number;
  /** The whole check's budget: aborting it ends this request too. */
  signal?: AbortSignal;
}

/**
 * One HTTP request of the model check, bounded in time and in body size, that never throws: a
 * connection failure or timeout comes back as `{ ok: false, error }` with the cause's own words
 * (`connect ECONNREFUSED 127.0.0.1:1234`), because that is what the person fixing the URL needs.
 */
export async function httpProbe(o: HttpProbeOptions): Promise<HttpAnswer> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(Math.max(1, o.timeoutMs));
  const signal = o.signal ? AbortSignal.any([timeout, o.signal]) : timeout;
  const ms = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(o.url, {
      method: o.method ?? "GET",
      headers: {
        accept: "application/json",
        ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        ...(o.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
      signal,
    });
    const text = await readCapped(response);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    return { ok: true, status: response.status, headers, text, json: parseJson(text), ms: ms() };
  } catch (err) {
    const budgetSpent = o.signal?.aborted === true && !timeout.aborted;
    const timedOut = timeout.aborted || budgetSpent;
    const error = timeout.aborted
      ? `no answer within ${Math.round(o.timeoutMs / 100) / 10} s`
      : budgetSpent
        ? "no answer before the check's time ran out"
        : causeOf(err);
    return { ok: false, error, timedOut, ms: ms() };
  }
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= MAX_BODY_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString("utf8");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** fetch's own message is "fetch failed"; the useful words are in its cause. */
function causeOf(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as unknown) : undefined;
  const inner = cause instanceof Error ? cause.message : undefined;
  const outer = err instanceof Error ? err.message : String(err);
  return (inner || outer || "request failed").slice(0, 300);
}

/** The error sentence of a JSON error body (`{error:{message}}`, `{error:"…"}`, `{detail}`), or its start. */
export function errorText(answer: { text: string; json: unknown }): string {
  const j = answer.json as { error?: unknown; message?: unknown; detail?: unknown } | undefined;
  const e = j?.error as { message?: unknown } | string | undefined;
  const candidates = [typeof e === "string" ? e : e?.message, j?.message, j?.detail];
  const found = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "");
  return oneLine(found ?? answer.text, 300);
}

/** Whitespace collapsed, cut with "…" at `max`. */
export function oneLine(text: string, max: number): string {
  // Only the start is looked at: a 1 MB error page costs no more than a short one.
  const flat = text
    .slice(0, max * 4)
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
