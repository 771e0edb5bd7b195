/**
 * The one error type Hermes raises on purpose. `code` is stable (tests and callers branch on it);
 * `message` is a sentence a Slack user can read and act on. Causes go to the log, never to Slack.
 */
export type HermesErrorCode =
  | "config_invalid"
  | "model_unavailable"
  | "model_bad_response"
  | "tool_unknown"
  | "tool_invalid_args"
  | "tool_timeout"
  | "tool_failed"
  | "permission_denied"
  | "approval_invalid"
  | "not_found"
  | "storage_unavailable"
  | "bad_request"
  | "budget_exceeded";

export class HermesError extends Error {
  readonly code: HermesErrorCode;
  override readonly cause?: unknown;

  constructor(code: HermesErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message);
    this.name = "HermesError";
    this.code = code;
    this.cause = options.cause;
  }
}

export function isHermesError(err: unknown, code?: HermesErrorCode): err is HermesError {
  return err instanceof HermesError && (code === undefined || err.code === code);
}

/** A short, safe description of any thrown value: the message only, never a stack. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
