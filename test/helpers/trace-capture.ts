import type { TraceEvent } from "../../src/agent/run/trace.ts";
import { createLogger, type Logger } from "../../src/core/logger.ts";
import { redactForLog } from "../../src/policy/redact.ts";

export interface CapturedLog {
  /** Redacted like production's logger, so what is captured is what would be written. */
  logger: Logger;
  /** Every JSON line written, parsed, oldest first. */
  lines: Array<Record<string, unknown>>;
  /** The trace events (lines with an `event`), optionally of one run. */
  events(runId?: string): TraceEvent[];
}

/** A logger that keeps its lines in memory, for tests that read the trace. */
export function captureLog(level = "info"): CapturedLog {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level,
    redact: redactForLog,
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return {
    logger,
    lines,
    events: (runId) =>
      lines.filter(
        (l): l is TraceEvent & Record<string, unknown> =>
          typeof l.event === "string" && (runId === undefined || l.runId === runId),
      ) as TraceEvent[],
  };
}
