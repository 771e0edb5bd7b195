import { parentPort } from "node:worker_threads";
import { MAX_RESULT_BLOCKS } from "./result-limits.ts";

/**
 * The worker side of `off-thread-parse.ts`: joins a large message's chunks, parses its JSON, and
 * keeps only the first MAX_RESULT_BLOCKS content blocks of a result, so what is cloned back to the
 * main thread is small whatever the server sent. How many blocks were left out goes back beside the
 * message, never inside it (a server's own key of that name means nothing).
 */
export interface ParseRequest {
  id: number;
  chunks: Uint8Array[];
}

export type ParseReply =
  | { id: number; ok: true; message: unknown; omitted: number }
  | { id: number; ok: false; error: string };

function parse(chunks: Uint8Array[]): { message: unknown; omitted: number } {
  const text = Buffer.concat(chunks).toString("utf8").replace(/\r$/, "");
  const message: unknown = JSON.parse(text);
  if (typeof message !== "object" || message === null || !("result" in message))
    return { message, omitted: 0 };
  const result = message.result;
  if (typeof result !== "object" || result === null || !("content" in result)) return { message, omitted: 0 };
  const content = result.content;
  if (!Array.isArray(content) || content.length <= MAX_RESULT_BLOCKS) return { message, omitted: 0 };
  const omitted = content.length - MAX_RESULT_BLOCKS;
  content.length = MAX_RESULT_BLOCKS;
  return { message, omitted };
}

parentPort?.on("message", (request: ParseRequest) => {
  let reply: ParseReply;
  try {
    reply = { id: request.id, ok: true, ...parse(request.chunks) };
  } catch (error) {
    reply = { id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
