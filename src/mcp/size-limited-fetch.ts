import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { MessageTooLarge } from "./result-limits.ts";

/**
 * The `fetch` of a Streamable HTTP MCP transport, with a cap on one message: a JSON body over
 * `limit` bytes, or an SSE event over it (counted from the blank line that ended the event before),
 * errors the body with `MessageTooLarge` as its bytes arrive, before the SDK joins or parses them. Only
 * a 200 answer's body is counted (redirects and empty answers pass as they are).
 */
export function sizeLimitedFetch(limit: number, base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await base(url, init);
    if (response.status !== 200 || !response.body) return response;
    const sse = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    let size = 0;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const first = sse ? eventEnd(chunk, "first") : -1;
          // The event being read ends in this chunk (its bytes up to the blank line count), and the
          // next one starts after the chunk's last blank line.
          let over: boolean;
          if (first < 0) {
            size += chunk.length;
            over = size > limit;
          } else {
            over = size + first > limit;
            size = chunk.length - eventEnd(chunk, "last");
          }
          if (over || size > limit) controller.error(new MessageTooLarge(limit));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Where the bytes after the first or last blank line (`\n\n`, `\r\r`, `\r\n\r\n`) of `chunk` start, or -1. */
function eventEnd(chunk: Uint8Array, which: "first" | "last"): number {
  const ends = (i: number) => {
    const c = chunk[i]!;
    if ((c === 10 || c === 13) && i > 0 && chunk[i - 1] === c) return true;
    return c === 10 && i > 2 && chunk[i - 1] === 13 && chunk[i - 2] === 10 && chunk[i - 3] === 13;
  };
  if (which === "first") {
    for (let i = 1; i < chunk.length; i++) if (ends(i)) return i + 1;
  } else {
    for (let i = chunk.length - 1; i > 0; i--) if (ends(i)) return i + 1;
  }
  return -1;
}
