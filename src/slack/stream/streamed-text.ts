/**
 * The answer text of a streamed message, as far as it may be shown: credentials cut out (the same
 * `redactSecrets` the final answer goes through) and only up to the last whole word, so a secret
 * still being written is never shown in part. What was shown is never taken back: when redacting more
 * text changes what is already out (a secret that began in it), the text stops growing here and the
 * final answer replaces it.
 */
export function createStreamedText(redactSecrets: (text: string) => string) {
  let raw = "";
  let shown = "";
  let frozen = false;
  return {
    /** Adds written text; returns what may be appended now ("" when nothing). */
    add(delta: string): string {
      if (frozen) return "";
      raw += delta;
      const cut = Math.max(raw.lastIndexOf(" "), raw.lastIndexOf("\n"));
      if (cut <= 0) return "";
      const safe = redactSecrets(raw.slice(0, cut));
      if (!safe.startsWith(shown)) {
        frozen = true;
        return "";
      }
      const out = safe.slice(shown.length);
      shown = safe;
      return out;
    },
    /** A model step ended in tool calls: the next step's text starts a paragraph of its own. */
    endStep(): void {
      if (raw.trim()) raw += "\n\n";
    },
    /** The text started again (a retried model call): nothing more is appended; the final answer shows. */
    freeze(): void {
      frozen = true;
    },
  };
}
