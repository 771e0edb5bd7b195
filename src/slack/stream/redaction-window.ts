import { screeningView } from "../../core/normalize-text.ts";

/**
 * How far, in characters of the redactor's screening view (escapes decoded, invisible characters
 * dropped, a whitespace run read as one space), a redaction may reach across a word break: from the
 * break to the end of what decides a match that started before it. The patterns whose matches cross
 * whitespace are decided within a few dozen such characters: `Bearer <token>` and `Basic <token>`
 * (the scheme, the space, and the first 24 characters of the token: `looksLikeToken`),
 * `password: <value>` and the other key-value secrets (a 13-character key, a separator of at most 11,
 * and the value's first 7 characters, which tell it from `bearer`/`basic`), and the personal-data
 * numbers: cards (at most 23), `+<country>` phones (15 digits in groups of at most 3 characters of
 * separators and brackets, about 61). Every other pattern matches one run of non-space characters
 * (tokens, keys, URLs with a password, emails, base64 runs), which no break cuts. REACH must stay above
 * the longest of these decisions in src/policy/redact-rules.ts; 128 leaves twice the room.
 */
export const REDACTION_REACH = 128;

/** Window length (characters) from which settling its start is tried; after settling it is ~REACH. */
const SETTLE_FROM = 512;

/**
 * Up to this length the window is redacted for every piece that completes a word (each word shows as
 * soon as it is whole); a longer one (settling failed: no break, or redactions across every break
 * tried) only once the text that may show grew by a quarter of it, so a piece costs O(1) on average.
 */
const EAGER_WINDOW = 1024;

/**
 * A window that could not be settled past this (no word break in it, or redactions across every
 * break tried): the text stops growing, and the final answer shows the rest.
 */
const MAX_WINDOW = 32 * 1024;

const SPACE = /\s/;

/** The options `createRedactor` reads text with (`src/policy/redact.ts`). */
const VIEW = { decode: true, foldConfusables: true } as const;

/**
 * A streamed text redacted as it grows, with the same result as redacting the whole text at once, at
 * a cost per piece that does not grow with the text.
 *
 * The text is held as a settled part, never redacted again, and a window after it. A point at the
 * start of a word (after a whitespace character) is settled when at least REDACTION_REACH view
 * characters follow it and the redactions of the window before and after it, put together, equal the
 * redaction of the window at once: no match crosses it now, and none can later, because a match that
 * crosses a word break is decided within REACH characters of it (see REDACTION_REACH). Whitespace in
 * the text is whitespace in the view too and never part of an escape, so both sides are read alike.
 * Redacting text → redact(settled) + redact(window) = redact(text).
 *
 * What may show: the window's redaction up to its last whitespace, redacted again when a piece
 * completes a word (only the window: at most ~EAGER_WINDOW characters, whatever the answer's length).
 * Credential replacements (all the Slack stream uses) never hold whitespace, so a word that showed
 * cannot change when more text comes; if it ever would (a configured secret value with a space in
 * it), the text stops growing and the final answer, redacted whole, replaces it.
 */
export function createRedactionWindow(redact: (text: string) => string) {
  let window = "";
  /** The window's redaction that was shown (a prefix of redacting the window up to `cut`). */
  let shownWindow = "";
  /** The window's last whitespace character (what shows ends before it), -1 when none. */
  let cut = -1;
  let redactedCut = -1;
  let settleAt = SETTLE_FROM;
  let stopped = false;

  /** Moves the window's start to a word break where nothing can change any more, when there is one. */
  const settle = (redacted: string) => {
    const text = window.slice(0, cut);
    const view = screeningView(text, VIEW);
    let count = 0;
    let v = view.text.length;
    while (v > 0 && count < REDACTION_REACH) if (!SPACE.test(view.text[--v]!)) count++;
    let at = count < REDACTION_REACH ? 0 : view.origin[v]!;
    while (at > 0 && !(SPACE.test(text[at - 1]!) && !SPACE.test(text[at]!))) at--;
    const before = at > 0 ? redact(text.slice(0, at)) : "";
    if (at === 0 || !redacted.startsWith(before) || before + redact(text.slice(at)) !== redacted) {
      // Tried again once the window doubled: a window that never settles costs O(1) a character.
      settleAt = window.length * 2;
      return;
    }
    window = window.slice(at);
    shownWindow = shownWindow.slice(before.length);
    cut -= at;
    redactedCut -= at;
    settleAt = Math.max(SETTLE_FROM, window.length * 2);
  };

  return {
    /** Adds written text; returns the redacted text that may be appended now ("" when none). */
    push(delta: string): string {
      if (stopped || !delta) return "";
      const from = window.length;
      window += delta;
      if (window.length > MAX_WINDOW) {
        stopped = true;
        return "";
      }
      for (let i = delta.length - 1; i >= 0; i--) {
        if (SPACE.test(delta[i]!)) {
          cut = from + i;
          break;
        }
      }
      if (cut <= 0 || cut === redactedCut) return "";
      if (cut > EAGER_WINDOW && (cut - redactedCut) * 4 < cut) return "";
      const redacted = redact(window.slice(0, cut));
      if (!redacted.startsWith(shownWindow)) {
        stopped = true;
        return "";
      }
      const out = redacted.slice(shownWindow.length);
      shownWindow = redacted;
      redactedCut = cut;
      if (window.length >= settleAt) settle(redacted);
      return out;
    },
    /**
     * The rest of the text, redacted: what was pushed out and this together are the whole text
     * redacted at once. Undefined once the text stopped growing (the final answer replaces it).
     */
    rest(): string | undefined {
      if (stopped) return undefined;
      const redacted = redact(window);
      return redacted.startsWith(shownWindow) ? redacted.slice(shownWindow.length) : undefined;
    },
    /** Nothing more is pushed out. */
    stop(): void {
      stopped = true;
    },
  };
}
