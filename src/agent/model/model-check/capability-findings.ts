import type { ImageFinding, StreamFinding, ToolProbeOutcome } from "./types.ts";

/** The `streaming` line: what `stream: true` got back, and what the bot does about it. */
export function streamingText(s: StreamFinding | undefined): string {
  if (!s) return "not tried (the model never answered)";
  switch (s.mode) {
    case "streams":
      return s.finished
        ? `yes: server-sent events (${s.chunks} chunks)`
        : `yes, but the stream ended before its finish reason (${s.chunks} chunks): Hermes asks again when that happens`;
    case "ignores_stream":
      return "no: the server ignores stream: true and sends one JSON answer (Hermes reads it; nothing shows in Slack while the model writes)";
    case "refuses_stream":
      return `no: HTTP ${s.status} to stream: true (${s.message}); Hermes asks unstreamed instead`;
    case "no_answer":
      return `unknown: ${s.error}`;
  }
}

/** The `streamed calls` line: how the tool-call probe's calls came when streamed. */
export function streamedCallsText(s: StreamFinding | undefined): string {
  if (!s) return "not tried";
  if (s.mode === "refuses_stream" || s.mode === "no_answer") return "not tried (no stream)";
  const how = callsText(s.toolCalls);
  return s.mode === "ignores_stream" ? `${how} (in the one JSON answer)` : how;
}

function callsText(o: ToolProbeOutcome): string {
  switch (o.kind) {
    case "native":
      return `native: tool_calls deltas (${o.calls.join(", ")})`;
    case "text":
      return `as text Hermes reads: ${o.format} (${o.calls.join(", ")})`;
    case "unrecovered":
      return `no: a call (${o.marker}) that could not be read`;
    case "unknown_markup":
      return `no: markup no reader knows (${o.marker})`;
    case "no_call":
      return "no: the model answered without a call";
    case "unreachable":
      return `no answer: ${o.error}`;
    case "not_completion":
      return `not a chat completion (${o.detail})`;
    case "http_error":
    case "tools_refused":
      return `HTTP ${o.status}: ${o.message}`;
  }
}

/** The `images` line: what the model made of a one-colour picture. */
export function imagesText(i: ImageFinding | undefined): string {
  if (!i) return "not tried (the model never answered)";
  switch (i.result) {
    case "takes_images":
      return `yes: named the colour of a 16×16 red test picture ("${i.answer}")`;
    case "refuses_images":
      return `no: the server refuses pictures (HTTP ${i.status}: ${i.message})`;
    case "ignores_images":
      return `no: asked the colour of a red test picture, the model answered "${i.answer}": the picture does not reach it`;
    case "no_answer":
      return `unknown: ${i.error}`;
  }
}
