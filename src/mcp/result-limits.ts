import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/**
 * The most bytes one message from an MCP server may have (a stdio line: stdio-transport.ts; an HTTP
 * JSON body or SSE event: size-limited-fetch.ts): past it the connection is dropped before the
 * message is joined or parsed, and the call fails saying so. 8 MiB: room for the largest image
 * Hermes uploads (5 MB, 6.7 MB as base64) with its envelope. A stdio message over 1 MiB is parsed
 * off the main thread (off-thread-parse.ts): one `JSON.parse` of that much holds a loop ~50–120 ms.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** A message longer than the limit: the transport reports it and drops the connection. */
export class MessageTooLarge extends Error {
  /** In the message, also when the SDK passes the error on as text (`SSE stream disconnected: …`). */
  static readonly text = "a message exceeded the size limit of";
  constructor(limit: number) {
    super(`${MessageTooLarge.text} ${limit} bytes`);
    this.name = "MessageTooLarge";
  }
}

/**
 * Content blocks of one result that are validated and rendered; the others are counted and left out
 * before the SDK's schema reads them (validating 200,000 blocks alone takes tens of milliseconds).
 */
export const MAX_RESULT_BLOCKS = 1_000;

/**
 * Characters of one result's rendered text: rendering stops here with a note of what was left out.
 * The registry then caps what the model reads (`maxResultChars`) and keeps this text for
 * `fetch_result`. 256 Ki, the same as the most one tool call's arguments may be.
 */
export const MAX_RENDERED_CHARS = 256 * 1024;

/** The key under which a capped result carries how many blocks were left out (never a server's). */
export const OMITTED_BLOCKS = "hermes/omittedContentBlocks";

/**
 * Results whose blocks a transport already capped while parsing (a large message, parsed off the
 * main thread: off-thread-parse.ts), with how many it left out. Kept by object, not in the result,
 * so a server cannot claim it.
 */
const cappedOnParse = new WeakMap<object, number>();

/** Records that `result`'s content was capped while its message was parsed, leaving out `omitted` blocks. */
export function markCappedOnParse(result: object, omitted: number): void {
  if (omitted > 0) cappedOnParse.set(result, omitted);
}

/**
 * The SDK's result schema behind a cap: a result with more than MAX_RESULT_BLOCKS content blocks
 * keeps only the first ones (and how many there were) before the schema reads it. Passed to
 * `client.callTool` as its result schema.
 */
export const CappedCallToolResultSchema: typeof CallToolResultSchema = z.preprocess((value) => {
  if (typeof value !== "object" || value === null) return value;
  const { [OMITTED_BLOCKS]: _spoofed, ...result } = value as Record<string, unknown>;
  const content = result.content;
  const capped = cappedOnParse.get(value) ?? 0;
  if (capped > 0) return { ...result, [OMITTED_BLOCKS]: capped };
  if (!Array.isArray(content) || content.length <= MAX_RESULT_BLOCKS) return result;
  return {
    ...result,
    content: content.slice(0, MAX_RESULT_BLOCKS),
    [OMITTED_BLOCKS]: content.length - MAX_RESULT_BLOCKS,
  };
  // The SDK's parameter type names its own schema; it reads any zod schema (its `safeParse`).
}, CallToolResultSchema) as unknown as typeof CallToolResultSchema;

/** How many content blocks a capped result left out (0 when none). */
export function omittedBlocks(result: object): number {
  const n = (result as Record<string, unknown>)[OMITTED_BLOCKS];
  return typeof n === "number" && Number.isInteger(n) && n > 0 ? n : 0;
}
