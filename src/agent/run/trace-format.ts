import type { TraceEvent } from "./trace.ts";

const list = (v: unknown) => (Array.isArray(v) ? v.join(", ") : String(v ?? ""));

/** One trace event as a readable timeline line (undefined for events not worth a line). */
export function formatTraceEvent(e: TraceEvent): string | undefined {
  const s = `step ${String(e.step).padStart(2)}`;
  const tool = e.tool ?? "";
  switch (e.event) {
    case "run.start":
      return `── run ${e.runId} (session ${e.sessionKey}, user ${e.userId ?? "?"}, ${e.historyMessages ?? 0} earlier messages)`;
    case "run.resume":
      return `── resume run ${e.runId}: ${JSON.stringify(e.decisions ?? {})}`;
    case "model.request":
      return `${s}  → model ${e.model ?? ""} (${e.messages} messages, ${e.tools} tools, ~${e.tokens} history tokens)`;
    case "model.response": {
      const u = (e.usage ?? {}) as { promptTokens?: number; completionTokens?: number };
      const what = list(e.toolCalls) ? `calls ${list(e.toolCalls)}` : `answer (${e.contentChars} chars)`;
      const repairs = list(e.repairs) ? `  repaired: ${list(e.repairs)}` : "";
      const sent =
        e.messages !== undefined
          ? ` (${e.messages} messages, ${e.tools} tools, ~${e.tokens} history tokens)`
          : "";
      return `${s}  ⇄ model ${e.model ?? ""}${sent} → ${what} [${u.promptTokens ?? 0}+${u.completionTokens ?? 0} tokens, ${e.latencyMs} ms, ${e.finishReason}]${repairs}`;
    }
    case "model.budget_exceeded":
      return `${s}  ✗ not sent: the ${e.scope} ${e.id}'s daily token budget (${e.limit}) has no room for ${e.requested} tokens`;
    case "model.budget_unavailable":
      return `${s}  ✗ not sent: the token budgets could not be read (${e.error})`;
    case "model.retry":
      return `${s}  ↻ model retry ${e.attempt} after ${e.status ?? "error"}, waiting ${e.delayMs} ms`;
    case "model.error":
      return `${s}  ✗ model error: ${e.error}`;
    case "model.truncated":
      return `${s}  ✂ model output cut off (${e.count}); not executed, asking again`;
    case "model.reasoning":
      return `${s}    reasoning (${e.chars} chars, kept out of history): ${String(e.text ?? "")
        .replace(/\s+/g, " ")
        .slice(0, 160)}`;
    case "model.format":
      return `${s}    calls recovered from text in the ${e.format} format${e.from === "reasoning" ? " (found in the reasoning)" : ""}: ${list(e.toolCalls)}`;
    case "model.unrecovered":
      return `${s}  ✗ a tool call no format could read (${e.marker}), ${e.count}×; not shown, asking again`;
    case "model.fallback":
      return `${s}  ⇆ switching to fallback model ${e.model} (${e.reason === "primary_unavailable" ? `${e.from} unavailable` : `${e.from} wrote unreadable calls`}): ${e.detail ?? ""}`;
    case "context.trimmed":
      return `${s}  ⇣ context trimmed to ~${e.tokens} tokens (${e.shrunkResults} results shrunk, ${e.droppedUnits} units summarized${e.summaryError ? `; summary failed: ${e.summaryError}` : ""})`;
    case "history.sanitized":
      return `${s}  ⚕ history repaired (${e.before} → ${e.after} messages)`;
    case "tool.repair":
      return e.writtenName
        ? `${s}    repaired ${tool} (written as ${e.writtenName}): ${list(e.repairs)}`
        : `${s}    repaired ${tool} arguments: ${list(e.repairs)}`;
    case "tool.coerced":
      return `${s}    coerced ${tool}: ${list(e.coerced)}`;
    case "tool.dropped_keys":
      return `${s}    dropped from ${tool}: ${[...((e.dropped as string[]) ?? []), ...((e.nulls as string[]) ?? []).map((n) => `${n}=null`)].join(", ")}`;
    case "tool.validation_error":
      return `${s}  ✗ ${tool} invalid arguments: ${String(e.error).split("\n").slice(1, -1).join("; ")}`;
    case "tool.unknown":
      return `${s}  ✗ unknown tool ${tool}`;
    case "tool.policy":
      return `${s}    policy ${tool}: ${e.decision}${e.reason ? ` (${e.reason})` : ""}`;
    case "tool.start":
      return `${s}  ▶ ${tool}`;
    case "tool.end":
      return e.ok
        ? `${s}  ✓ ${tool} ${e.durationMs} ms, ${e.chars} chars${e.capped ? " (capped)" : ""}`
        : `${s}  ✗ ${tool} failed after ${e.attempts} attempt(s): ${e.error}`;
    case "run.end":
      return `── ${e.status}${e.stopReason ? ` (${e.stopReason})` : ""}${e.status === "paused" ? `: waiting for approval of ${list(e.pending)}` : ` after ${e.steps} steps, ${e.modelCalls} model calls`}`;
    case "note":
      return `${s}    note: ${e.note ?? ""}`;
  }
}

/** Turns a JSONL trace (pino lines, possibly mixed with other logs) into a timeline, run by run. */
export function replayTrace(jsonl: string, runId?: string): string {
  const out: string[] = [];
  for (const line of jsonl.split("\n")) {
    if (!line.trim().startsWith("{")) continue;
    let e: TraceEvent;
    try {
      e = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof e.event !== "string" || (runId && e.runId !== runId)) continue;
    const text = formatTraceEvent(e);
    if (text) out.push(text);
  }
  return out.length ? out.join("\n") : "(no trace events found)";
}
