import { imagesText, streamedCallsText, streamingText } from "./capability-findings.ts";
import { markupFindings } from "./markup-findings.ts";
import type { Finding, ModelCheckResult, ToolProbeOutcome } from "./types.ts";
import { verdictLine } from "./verdict.ts";

/**
 * The report as labelled findings, in the order they were probed; the CLI prints them as lines and
 * `/hermes model` as sections, so both say the same. The verdict and its hint are not in here (see
 * `verdictLine`): they close the report.
 */
export function modelCheckFindings(r: ModelCheckResult): Finding[] {
  return [
    { label: "endpoint", text: `${r.baseURL} · model ${r.model} · ${r.toolCount} tool specs` },
    { label: "models", text: modelsText(r) },
    {
      label: "server",
      text: `${r.family.name}${r.family.evidence.length ? ` (${r.family.evidence.join("; ")})` : ""}`,
    },
    { label: "context window", text: contextText(r) },
    { label: "tool calling", text: toolCallingText(r) },
    { label: "text format", text: textFormatText(r) },
    ...markupFindings(r),
    { label: "tool results", text: toolResultsText(r) },
    { label: "streaming", text: streamingText(r.streaming) },
    { label: "streamed calls", text: streamedCallsText(r.streaming) },
    { label: "images", text: imagesText(r.images) },
    { label: "latency", text: latencyText(r) },
  ];
}

/** The report as plain lines: the findings, the verdict, the hint. */
export function modelCheckLines(r: ModelCheckResult): string[] {
  const width = 15;
  return [
    ...modelCheckFindings(r).map((f) => `${`${f.label}:`.padEnd(width)} ${f.text}`),
    verdictLine(r.verdict),
    ...(r.verdict.hint ? [`hint: ${r.verdict.hint}`] : []),
  ];
}

function modelsText(r: ModelCheckResult): string {
  const m = r.models;
  if (m.status !== "ok") return `could not read ${m.url} (${m.error ?? m.status})`;
  const shown = m.ids.slice(0, 5).join(", ");
  const more = m.ids.length > 5 ? `, … ${m.ids.length - 5} more` : "";
  const listed = m.listed ? `${r.model} is listed` : `${r.model} is NOT listed`;
  return `${m.ids.length} listed (${shown}${more}); ${listed}`;
}

function contextText(r: ModelCheckResult): string {
  const c = r.contextWindow;
  if (!c) return "not reported by the server";
  return `${c.tokens} tokens (${c.source}${c.note ? `; ${c.note}` : ""})`;
}

function toolCallingText(r: ModelCheckResult): string {
  const p = r.toolCalls;
  if (!p) return "not tried";
  const tries = p.tries.length;
  const reasoning = p.tries.some((t) => t.reasoning)
    ? " · the model writes reasoning (kept out of replies)"
    : "";
  const best = p.best;
  switch (best.kind) {
    case "native":
      return `yes: native tool_calls in ${p.nativeCount} of ${tries} tries (${best.calls.join(", ")})${reasoning}`;
    case "text":
      return `no: calls came as text in ${countOf(p.tries, "text")} of ${tries} tries (${best.calls.join(", ")})${reasoning}`;
    case "unrecovered":
      return `no: the model wrote a call (${best.marker}) that could not be read${reasoning}`;
    case "unknown_markup":
      return `no: the model wrote markup that looks like a call (${best.marker}) in a syntax Hermes does not read${reasoning}`;
    case "no_call":
      return `no: the model answered without a call${best.content ? ` ("${best.content}")` : ""}${reasoning}`;
    default:
      return `no answer to read: ${outcomeError(best)}`;
  }
}

function textFormatText(r: ModelCheckResult): string {
  const best = r.toolCalls?.best;
  if (!best) return "not tried";
  if (best.kind === "native") return "none needed (native)";
  if (best.kind === "text") return best.format;
  if (best.kind === "unrecovered") return `unrecovered (${best.marker})`;
  if (best.kind === "unknown_markup") return `unknown (${best.marker})`;
  if (best.kind === "no_call") return "none (no call written)";
  return "not tried";
}

function toolResultsText(r: ModelCheckResult): string {
  const t = r.toolResults;
  if (!t) return "not tried (no call to answer)";
  return t.accepted
    ? "accepted (a completion came back for the tool message)"
    : `refused: ${t.error ?? "no completion"}`;
}

function latencyText(r: ModelCheckResult): string {
  const l = r.latency;
  if (l.p50Ms === undefined) return "no completed probe";
  return `p50 ${l.p50Ms} ms over ${l.samplesMs.length} probe${l.samplesMs.length === 1 ? "" : "s"} (${l.samplesMs.join(", ")} ms)`;
}

function countOf(
  tries: ReadonlyArray<{ outcome: ToolProbeOutcome }>,
  kind: ToolProbeOutcome["kind"],
): number {
  return tries.filter((t) => t.outcome.kind === kind).length;
}

function outcomeError(o: ToolProbeOutcome): string {
  switch (o.kind) {
    case "unreachable":
      return o.error;
    case "not_completion":
      return `not a chat completion (${o.detail})`;
    case "http_error":
    case "tools_refused":
      return `HTTP ${o.status}: ${o.message}`;
    default:
      return o.kind;
  }
}
