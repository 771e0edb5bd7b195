import { createRedactionWindow } from "./redaction-window.ts";

/**
 * The answer text of a streamed message, as far as it may be shown: credentials cut out (the same
 * `redactSecrets` the final answer goes through) and only up to the last whole word, so a secret
 * still being written is never shown in part. Redacted in a sliding window (`redaction-window.ts`):
 * a piece costs the same however long the answer is, and the text shown is the start of the whole
 * text redacted at once. What was shown is never taken back: when redacting more text would change
 * what is already out, the text stops growing here and the final answer replaces it.
 */
export function createStreamedText(redactSecrets: (text: string) => string) {
  const text = createRedactionWindow(redactSecrets);
  let written = false;
  return {
    /** Adds written text; returns what may be appended now ("" when nothing). */
    add(delta: string): string {
      if (/\S/.test(delta)) written = true;
      return text.push(delta);
    },
    /** A model step ended in tool calls: the next step's text starts a paragraph of its own. */
    endStep(): void {
      if (written) text.push("\n\n");
    },
    /** The text started again (a retried model call): nothing more is appended; the final answer shows. */
    freeze(): void {
      text.stop();
    },
  };
}
