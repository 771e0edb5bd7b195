import { HermesError } from "../../../core/errors.ts";
import { MAX_ARGUMENT_CHARS } from "../../../core/json-limits.ts";

/**
 * The most characters one streamed model reply may carry (answer text, reasoning and tool-call
 * arguments together), whatever `max_tokens` the server honours: a server that ignores it and keeps
 * writing is cut here, its request aborted. 256 Ki characters: the most one tool call's arguments may
 * be (MAX_ARGUMENT_CHARS) and the longest text the redactor screens whole, far past what an answer
 * shows as messages (over 16,000 characters an answer already goes into a file).
 */
export const MAX_STREAMED_CHARS = MAX_ARGUMENT_CHARS;

/** What the user is told when a reply was cut at the cap. */
export function answerCutError(where: string, cap = MAX_STREAMED_CHARS): HermesError {
  return new HermesError(
    "model_bad_response",
    `The answer was cut at ${cap.toLocaleString("en-US")} characters, the most Hermes takes in one reply: the model at ${where} did not stop writing.`,
  );
}
