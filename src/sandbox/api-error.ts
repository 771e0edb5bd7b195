/**
 * A Slack Web API error answer: HTTP 200 with `{ ok: false, error, ...extra }`. Method handlers throw
 * it; the server turns it into the response body.
 */
export class SlackApiError extends Error {
  readonly error: string;
  readonly extra: Record<string, unknown>;

  constructor(error: string, extra: Record<string, unknown> = {}) {
    super(error);
    this.name = "SlackApiError";
    this.error = error;
    this.extra = extra;
  }

  toBody(): Record<string, unknown> {
    return { ok: false, error: this.error, ...this.extra };
  }
}

/** Slack's shape for refused blocks: the strings in `errors` and, prefixed, in `response_metadata`. */
export function invalidBlocks(errors: string[]): SlackApiError {
  return new SlackApiError("invalid_blocks", {
    errors,
    response_metadata: { messages: errors.map((e) => `[ERROR] ${e}`) },
  });
}

/** Slack's shape for a missing or malformed argument (`views.*` also uses it for refused blocks). */
export function invalidArguments(messages: string[]): SlackApiError {
  return new SlackApiError("invalid_arguments", {
    response_metadata: { messages: messages.map((m) => `[ERROR] ${m}`) },
  });
}
