import type { RunStepRecord, RunSummary } from "./run-query.ts";
import type { RunStatus } from "./schema.ts";

/** The status as people read it: a completed run "answered". */
export function runStatusLabel(status: RunStatus): string {
  return status === "completed" ? "answered" : status;
}

/** `850ms`, `12.3s`, `4m 05s`, `2h 03m`. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

/** `$0.0123`; "cost unknown" when a model had no configured price. */
export function formatCost(usd: number | null): string {
  if (usd === null) return "cost unknown";
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(2)}`;
}

/** `1,234 in / 56 out tokens`. */
export function formatTokens(prompt: number, completion: number): string {
  return `${prompt.toLocaleString("en-US")} in / ${completion.toLocaleString("en-US")} out tokens`;
}

/** Where the run's time went: model, tools, approval wait and Hermes' own time. */
export function timeSplit(r: RunSummary): string {
  return `model ${formatMs(r.modelMs)} · tools ${formatMs(r.toolMs)} · approval wait ${formatMs(r.approvalWaitMs)} · own ${formatMs(r.ownMs)}`;
}

type StepData = Record<string, unknown>;
const dataOf = (s: RunStepRecord): StepData =>
  s.data && typeof s.data === "object" && !Array.isArray(s.data) ? (s.data as StepData) : {};
const json = (v: unknown) => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

/**
 * The plain-text parts of one timeline row (already redacted when stored): what it was, how it
 * went, and its details. Slack and the CLI each escape and join them their own way.
 */
export function describeStep(s: RunStepRecord): { what: string; status: string; details: string[] } {
  const d = dataOf(s);
  const details: string[] = [];
  const what = `${s.kind}${s.name ? ` ${s.name}` : ""}`;
  switch (s.kind) {
    case "model":
      if (s.promptTokens !== null) details.push(formatTokens(s.promptTokens, s.completionTokens ?? 0));
      if (s.costUsd !== null) details.push(formatCost(s.costUsd));
      if (d.finishReason) details.push(`finish ${json(d.finishReason)}`);
      if (Array.isArray(d.toolCalls) && d.toolCalls.length > 0)
        details.push(`calls ${d.toolCalls.join(", ")}`);
      if (d.formatRecovered) details.push(`format recovered: ${json(d.formatRecovered)}`);
      if (Array.isArray(d.repairs) && d.repairs.length > 0)
        details.push(`repairs: ${d.repairs.map(json).join("; ")}`);
      if (d.retries) details.push(`${json(d.retries)} retries`);
      if (d.error) details.push(`error: ${json(d.error)}`);
      break;
    case "tool": {
      const policy = d.policy as { decision?: unknown; reason?: unknown; approved?: unknown } | undefined;
      if (policy?.decision)
        details.push(`policy ${json(policy.decision)}${policy.reason ? ` (${json(policy.reason)})` : ""}`);
      const approval = d.approval as { approvalId?: unknown; decidedBy?: unknown } | undefined;
      if (approval?.approvalId)
        details.push(
          `approval ${json(approval.approvalId)}${approval.decidedBy ? ` by ${json(approval.decidedBy)}` : ""}`,
        );
      if (d.args !== undefined) details.push(`args ${json(d.args)}`);
      if (d.error) details.push(`error: ${json(d.error)}`);
      else if (d.resultPreview) details.push(`→ ${json(d.resultPreview)}`);
      break;
    }
    case "approval":
      if (d.decidedBy) details.push(`decided by ${json(d.decidedBy)}`);
      if (d.approvalId) details.push(`approval ${json(d.approvalId)}`);
      if (s.status !== "pending") details.push(`waited ${formatMs(s.durationMs)}`);
      break;
    case "context":
      for (const k of ["tokens", "droppedUnits", "shrunkResults", "summarized", "before", "after"])
        if (d[k] !== undefined && d[k] !== false && d[k] !== 0) details.push(`${k} ${json(d[k])}`);
      if (d.summaryError) details.push(`summary failed: ${json(d.summaryError)}`);
      break;
    case "note":
      for (const k of ["note", "error", "reason", "model", "detail", "decisions"])
        if (d[k] !== undefined) details.push(`${k === "note" ? "" : `${k} `}${json(d[k])}`);
      break;
  }
  return { what, status: s.status ?? "", details };
}
