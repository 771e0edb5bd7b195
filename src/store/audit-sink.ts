import type { ToolEvent, ToolEventSink } from "../agent/run/policy-hook.ts";
import type { AuditLog } from "./audit.ts";

/** Longest `result_summary` kept; the full result lives in `results` when it was capped. */
export const MAX_RESULT_SUMMARY = 500;

export interface AuditSinkOptions {
  audit: AuditLog;
  /** The policy's `redact`: applied to args, result summary and error before they are written. */
  redact: (value: unknown) => unknown;
  maxSummaryChars?: number;
}

/**
 * The runtime's `ToolEventSink`: one audit row per tool event. The runtime's hash of the raw args
 * (what approvals are bound to) goes to the audit log, which stores only its HMAC with the audit key
 * (`AuditLog.append`); everything textual is redacted first. A failed write rejects, so the runtime
 * refuses to execute a call whose request could not be recorded.
 */
export function createAuditSink(options: AuditSinkOptions): ToolEventSink {
  const { audit, redact } = options;
  const max = options.maxSummaryChars ?? MAX_RESULT_SUMMARY;
  const text = (value: string | undefined) => (value === undefined ? null : String(redact(value)));

  return async (event: ToolEvent) => {
    const { run } = event;
    await audit.append({
      action: event.action,
      tool: event.tool,
      userId: run.userId,
      teamId: run.teamId,
      channelId: run.channelId,
      threadTs: run.threadTs,
      runId: run.runId,
      toolCallId: event.callId,
      args: redact(event.args),
      argsSha256: event.argsSha256,
      resultSummary: summary(text(event.resultSummary), max),
      // A denial's reason is its error: why the call did not run.
      error: text(event.error ?? event.reason),
      durationMs: event.durationMs,
    });
  };
}

/**
 * Caps an already-redacted summary. Redaction runs on the whole text first: cutting first could
 * leave half a card number or email that no longer looks like one. A cut drops the partial word.
 */
function summary(value: string | null, max: number): string | null {
  if (value === null || value.length <= max) return value;
  const head = value.slice(0, max);
  const lastSpace = head.search(/\s\S*$/);
  return `${lastSpace > max / 2 ? head.slice(0, lastSpace) : head}…`;
}
