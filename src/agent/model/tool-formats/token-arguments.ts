import { type StopAt, scanJsonValue } from "./json-calls.ts";
import { skipFenceCloser, skipFenceOpener, skipSpaces } from "./scan-text.ts";

/** The arguments written after a special token, as raw text (see argumentsAt). */
export interface ArgumentsText {
  args: string;
  /** For JSON: whether the value closed. For other text: whether the token at `limit` ends the call. */
  complete: boolean;
  /** Index after the arguments (and the fence closing them); `limit` for text that is not JSON. */
  end: number;
}

/**
 * The arguments written from `from` (just after the token that opens them). A JSON value, possibly
 * fenced (```json), is scanned to its own end, string-aware, so a token inside one of its strings is
 * text and a token outside them cuts it off; it is complete when it closed, whatever comes after.
 * Anything else runs to `limit` (the next token) and is complete when `closedAtLimit` (that token
 * ends the call).
 */
export function argumentsAt({
  text,
  from,
  limit,
  closedAtLimit,
  stop,
}: {
  text: string;
  from: number;
  limit: number;
  closedAtLimit: boolean;
  stop: StopAt;
}): ArgumentsText {
  const first = skipSpaces(text, from, limit);
  const a = skipSpaces(text, skipFenceOpener(text, first), limit);
  const c = text.charCodeAt(a);
  if (a >= limit || (c !== 123 && c !== 91)) {
    return { args: text.slice(a, limit).trim(), complete: closedAtLimit, end: limit };
  }
  const scan = scanJsonValue(text, a, stop);
  const end = a > first ? skipFenceCloser(text, scan.end) : scan.end;
  return { args: text.slice(a, scan.end), complete: scan.complete, end };
}
