import type { ToolSpec } from "../chat-model.ts";
import { createChunkAccumulator, type RawChunk } from "../streaming/chunk-accumulator.ts";
import type { ToolFormatContext } from "../tool-formats/types.ts";
import { errorText, type HttpAnswer } from "./http-probe.ts";
import { type ChatSettings, classifyToolAnswer, postChat, probeMessages } from "./tool-call-probe.ts";
import type { StreamFinding } from "./types.ts";

/**
 * The tool-call probe asked again as the bot asks when it streams (`stream: true` with usage): a
 * server-sent event stream is `streams`, its chunks put together the way the bot does
 * (`createChunkAccumulator`) and read like the unstreamed answer, so `toolCalls` says whether calls
 * came as `tool_calls` deltas (native), as text Hermes reads, or not at all. One JSON completion
 * is `ignores_stream`; a 400/422 is `refuses_stream` (the bot then asks unstreamed). Never throws.
 */
export async function probeStreaming(
  s: ChatSettings,
  specs: readonly ToolSpec[],
  ctx: ToolFormatContext,
): Promise<StreamFinding> {
  const answer = await postChat(s, probeMessages(), specs, {
    stream: true,
    stream_options: { include_usage: true },
  });
  const names = specs.map((t) => t.name);
  if (!answer.ok) return { mode: "no_answer", error: answer.error };
  if (answer.status === 400 || answer.status === 422) {
    return { mode: "refuses_stream", status: answer.status, message: errorText(answer) };
  }
  if (answer.status >= 400)
    return { mode: "no_answer", error: `HTTP ${answer.status}: ${errorText(answer)}` };
  const type = answer.headers["content-type"] ?? "";
  if (!type.includes("text/event-stream")) {
    const toolCalls = classifyToolAnswer(answer, ctx, names).attempt.outcome;
    if (toolCalls.kind === "not_completion")
      return { mode: "no_answer", error: `not a chat completion (${toolCalls.detail})` };
    return { mode: "ignores_stream", toolCalls };
  }
  const events = readEvents(answer.text);
  if (events.error) return { mode: "no_answer", error: `an error inside the stream: ${events.error}` };
  const acc = createChunkAccumulator();
  for (const chunk of events.chunks) acc.add(chunk);
  const { message, finish } = acc.result();
  // The collected message, read exactly like an unstreamed answer.
  const collected: HttpAnswer = {
    ...answer,
    headers: { ...answer.headers, "content-type": "application/json" },
    json: { choices: [{ index: 0, message, finish_reason: finish ?? null }] },
  };
  const toolCalls = classifyToolAnswer(collected, ctx, names).attempt.outcome;
  return { mode: "streams", chunks: events.chunks.length, finished: acc.finished, toolCalls };
}

/** The JSON chunks of an SSE body (`data:` lines up to `[DONE]`), or the error a server sent inside it. */
function readEvents(text: string): { chunks: RawChunk[]; error?: string } {
  const chunks: RawChunk[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "[DONE]") break;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null) continue;
    const error = (parsed as { error?: unknown }).error;
    if (error) return { chunks, error: errorText({ text: data, json: parsed }) };
    chunks.push(parsed as RawChunk);
  }
  return { chunks };
}
