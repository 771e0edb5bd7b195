import { setImmediate as yieldToLoop } from "node:timers/promises";
import type OpenAI from "openai";
import type { ChatCompletionCreateParamsBase } from "openai/resources/chat/completions/completions";
import type { RawAssistantMessage } from "../normalize-response.ts";
import { withTurnSignal } from "../turn-signal-fetch.ts";
import { createAnswerPreview } from "./answer-preview.ts";
import { createChunkAccumulator, type RawChunk } from "./chunk-accumulator.ts";
import { MAX_STREAMED_CHARS } from "./stream-cap.ts";

/** Chunks read between two turns of the event loop. */
const YIELD_EVERY_CHUNKS = 128;

/** A streamed answer that stopped before its end (connection lost, no finish reason): asked again. */
export class StreamInterrupted extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StreamInterrupted";
  }
}

/** What a completion came to, streamed or not: the message to normalize, why it ended, the usage. */
export interface RawOutcome {
  message: RawAssistantMessage;
  finish: unknown;
  model?: string | undefined;
  usage: RawChunk["usage"];
}

/**
 * Asks for a streamed completion and collects it into the message an unstreamed answer would have
 * carried. Answer text that is safe to show goes to `onText` as it arrives (never reasoning, tool
 * calls or markup: `answer-preview.ts`). A server that answers with a plain JSON completion instead
 * of a stream is read as one; a stream cut off before its finish reason is `StreamInterrupted`, so a
 * half answer is never returned. A reply longer than MAX_STREAMED_CHARS (a server that ignores
 * `max_tokens` and never stops) is cut there: its request is aborted and `cut` says so.
 */
export async function streamCompletion(
  client: OpenAI,
  params: ChatCompletionCreateParamsBase,
  o: {
    signal?: AbortSignal | undefined;
    onText: (delta: string) => void;
    reasoningUntilClose: boolean;
    notACompletion: () => Error;
    /** The reply went past MAX_STREAMED_CHARS: it was cut there. */
    cut: (cap: number) => Error;
  },
): Promise<RawOutcome | { completion: unknown }> {
  const { data: stream, response } = await client.chat.completions
    .create({ ...params, stream: true, stream_options: { include_usage: true } }, withTurnSignal(o.signal))
    .withResponse();
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    // A server (or proxy) that ignores `stream`: its whole answer is one JSON body.
    const text = await response.text().catch(() => "");
    try {
      return { completion: JSON.parse(text) as unknown };
    } catch {
      throw o.notACompletion();
    }
  }
  const acc = createChunkAccumulator();
  const preview = createAnswerPreview({ reasoningUntilClose: o.reasoningUntilClose });
  const cap = MAX_STREAMED_CHARS;
  let cut = false;
  let read = 0;
  try {
    for await (const chunk of stream) {
      // Chunks already received are read one after another without the event loop turning (the
      // iteration resolves in microtasks): other work gets its turn every so many.
      if (++read % YIELD_EVERY_CHUNKS === 0) await yieldToLoop();
      const text = acc.add(chunk as unknown as RawChunk);
      if (acc.chars > cap) {
        // Leaving the loop closes the stream: the SDK aborts the request.
        cut = true;
        preview.stop();
        break;
      }
      if (acc.hasCalls) preview.stop();
      if (!text) continue;
      const delta = preview.add(text);
      if (delta) o.onText(delta);
    }
  } catch (err) {
    if (o.signal?.aborted) throw err;
    // An error the server sent inside the stream keeps its status (retried or not as usual).
    if (err instanceof Error && "status" in err && (err as { status?: unknown }).status !== undefined)
      throw err;
    throw new StreamInterrupted(
      `the streamed answer was cut off: ${err instanceof Error ? err.message : String(err)}`,
      {
        cause: err,
      },
    );
  }
  if (cut) throw o.cut(cap);
  if (!acc.finished) throw new StreamInterrupted("the streamed answer ended before its finish reason");
  return acc.result();
}
