import { fold, isIOrL } from "./fold-confusables.ts";

/**
 * Text as a screener should read it, not as it is spelled. Hostile text hides words from pattern
 * checks with invisible characters (zero-width, bidi controls), look-alike letters (Cyrillic `о`,
 * Greek `Α`, full-width `ｉ`), letter spacing (`i g n o r e`) and escapes (`&lt;`, `\u003c`, `%3C`).
 * `screeningView` undoes all of that in one linear pass and keeps, for every character of the view,
 * where it came from in the source, so a finding in the view can be cut out of the original text.
 */

export interface ScreeningOptions {
  /** Decode `%XX`, HTML entities and `\uXXXX` / `\xXX` escapes (twice, for double encoding). */
  decode?: boolean;
  /** Map look-alike letters from other scripts to the Latin letter they imitate. */
  foldConfusables?: boolean;
  /**
   * Read a look-alike of both a capital I and a small l (Cyrillic `І` and `Ӏ`, Greek `Ι`, Latin `ǀ`)
   * as `i` instead of the `l` the confusables data gives: a screener reads the text both ways.
   */
  ambiguousAsI?: boolean;
  /**
   * Drop combining marks that belong to no script (accents written apart, strikethrough U+0336 and
   * U+0335, overlays U+0338, enclosing marks): `i̶g̶n̶o̶r̶e̶` reads `ignore`. Marks that are part of a
   * script's spelling (Devanagari, Thai, Hebrew vowel signs) stay.
   */
  dropMarks?: boolean;
  /** Join runs of single letters (`i g n o r e  p r e v i o u s` → `ignore previous`). */
  joinSpacedLetters?: boolean;
  /** Lower-case the view (memory screening; redaction keeps case: tokens are case-sensitive). */
  lowerCase?: boolean;
  /**
   * Read every dash (en dash `–`, em dash, hyphen `‐`, minus `−`, small and full-width forms) as `-`
   * and the middle dots (`·`, `・`, `‧`) as `.`, so a number grouped with any of them reads like one
   * grouped with the ASCII separator.
   */
  unifySeparators?: boolean;
}

export interface ScreeningView {
  text: string;
  /** `origin[i]`: index in the source where `text[i]` came from; `origin[text.length]` = source length. */
  origin: Int32Array;
}

// Unicode's default-ignorable code points: zero-width spaces and joiners, bidi embeddings, overrides
// and isolates, word joiner, BOM, soft hyphen, combining grapheme joiner, variation selectors, tag
// characters, Hangul fillers. A renderer draws none of them.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/u;

/** True when `char` (one code point) is invisible formatting: dropped from views and stored text. */
export function isInvisible(char: string): boolean {
  return INVISIBLE.test(char);
}

/**
 * What a stored fact should be: NFKC (full-width and compatibility forms folded), invisible characters
 * removed, whitespace collapsed. Letters of other scripts are kept: folding them would garble real
 * Greek or Russian text; only the screening view folds them.
 */
export function normalizeForStorage(text: string): string {
  let out = "";
  for (const char of text.normalize("NFKC")) if (!isInvisible(char)) out += char;
  return out.replace(/\s+/g, " ").trim();
}

const nfkcCache = new Map<string, string>();
const CACHE_LIMIT = 4096;

function nfkc(char: string): string {
  let out = nfkcCache.get(char);
  if (out === undefined) {
    out = char.normalize("NFKC");
    if (nfkcCache.size < CACHE_LIMIT) nfkcCache.set(char, out);
  }
  return out;
}

/** Combining marks of no script (`Script=Inherited`) and enclosing marks. */
const LOOSE_MARK = /^(?:\p{Me}|(?=\p{Script=Inherited})\p{Mn})$/u;

const ENTITIES: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: " ",
  sol: "/",
  bsol: "\\",
  colon: ":",
  commat: "@",
  period: ".",
  percnt: "%",
  num: "#",
  equals: "=",
  lowbar: "_",
  hyphen: "-",
  dash: "-",
};

const HEX = /^[0-9A-Fa-f]+$/;
const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n",
  r: "\r",
  t: "\t",
  "/": "/",
  '"': '"',
  "'": "'",
  "\\": "\\",
};

/** A decoded escape at `i` (its text and source length), or undefined. Constant work per position. */
function decodeAt(s: string, i: number): { text: string; length: number } | undefined {
  const c = s[i];
  if (c === "%") {
    const first = hexByte(s, i);
    if (first === undefined) return undefined;
    if (first < 0x80) return { text: String.fromCharCode(first), length: 3 };
    // A UTF-8 sequence of percent-escapes (`%E5%BF%BD` → 忽).
    const size = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 0;
    if (size === 0) return undefined;
    const bytes = [first];
    for (let k = 1; k < size; k++) {
      const b = hexByte(s, i + 3 * k);
      if (b === undefined || (b & 0xc0) !== 0x80) return undefined;
      bytes.push(b);
    }
    const text = Buffer.from(bytes).toString("utf8");
    return text.includes("\uFFFD") ? undefined : { text, length: 3 * size };
  }
  if (c === "&") {
    const end = s.indexOf(";", i + 1);
    if (end < 0 || end - i > 12) return undefined;
    const name = s.slice(i + 1, end);
    if (name.startsWith("#")) {
      const isHex = name[1] === "x" || name[1] === "X";
      const digits = name.slice(isHex ? 2 : 1);
      if (!digits || !(isHex ? HEX.test(digits) : /^\d+$/.test(digits))) return undefined;
      return codePoint(Number.parseInt(digits, isHex ? 16 : 10), end + 1 - i);
    }
    const text = ENTITIES[name.toLowerCase()];
    return text === undefined ? undefined : { text, length: end + 1 - i };
  }
  if (c === "\\") {
    const kind = s[i + 1];
    if (kind === "u" && s[i + 2] === "{") {
      const end = s.indexOf("}", i + 3);
      if (end < 0 || end - i > 10) return undefined;
      const digits = s.slice(i + 3, end);
      return HEX.test(digits) ? codePoint(Number.parseInt(digits, 16), end + 1 - i) : undefined;
    }
    // JSON and JS string escapes: a log line that embeds a JSON body has `\n` before a value.
    const simple = kind === undefined ? undefined : SIMPLE_ESCAPES[kind];
    if (simple !== undefined) return { text: simple, length: 2 };
    const width = kind === "u" ? 4 : kind === "x" ? 2 : 0;
    if (width === 0) return undefined;
    const digits = s.slice(i + 2, i + 2 + width);
    return digits.length === width && HEX.test(digits)
      ? codePoint(Number.parseInt(digits, 16), 2 + width)
      : undefined;
  }
  return undefined;
}

function hexByte(s: string, i: number): number | undefined {
  if (s[i] !== "%") return undefined;
  const digits = s.slice(i + 1, i + 3);
  return digits.length === 2 && HEX.test(digits) ? Number.parseInt(digits, 16) : undefined;
}

function codePoint(cp: number, length: number): { text: string; length: number } | undefined {
  if (!Number.isInteger(cp) || cp < 1 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return undefined;
  return { text: String.fromCodePoint(cp), length };
}

// Dash punctuation (`\p{Pd}`: hyphens, en and em dashes, the wave dash, small and full-width dashes)
// and the minus sign; middle dots used to group digits.
const DASH = /^[\p{Pd}\u2212]$/u;
const MIDDLE_DOT = /^[\u00B7\u2027\u30FB\uFF65]$/;

/** The ASCII separator a non-ASCII dash or middle dot stands for, or the character itself. */
function unifySeparator(char: string): string {
  if (DASH.test(char)) return "-";
  return MIDDLE_DOT.test(char) ? "." : char;
}

/** Builds a view while keeping the source index of every character written. */
class ViewBuilder {
  private parts: string[] = [];
  private origins: number[] = [];
  length = 0;
  push(text: string, from: number): void {
    this.parts.push(text);
    for (let k = 0; k < text.length; k++) this.origins.push(from);
    this.length += text.length;
  }
  /** Replaces the last character written (same origin). */
  replaceLast(char: string): void {
    const last = this.parts.length - 1;
    const part = this.parts[last];
    if (part) this.parts[last] = part.slice(0, -1) + char;
  }
  done(sourceLength: number): ScreeningView {
    const origin = new Int32Array(this.length + 1);
    origin.set(this.origins);
    origin[this.length] = sourceLength;
    return { text: this.parts.join(""), origin };
  }
}

/** One pass: decode (optional), NFKC per character, drop invisibles, fold, collapse whitespace. */
function pass(source: string, o: ScreeningOptions, decode: boolean): ScreeningView {
  const out = new ViewBuilder();
  const maxRun = o.joinSpacedLetters ? 2 : 1;
  let run = 0;
  let i = 0;
  while (i < source.length) {
    let raw: string;
    let length: number;
    const decoded = decode ? decodeAt(source, i) : undefined;
    if (decoded) {
      raw = decoded.text;
      length = decoded.length;
    } else {
      const cp = source.codePointAt(i)!;
      length = cp > 0xffff ? 2 : 1;
      raw = source.slice(i, i + length);
    }
    const code = raw.charCodeAt(0);
    // ASCII needs no normalization or folding; only whitespace is collapsed.
    const text = raw.length === 1 && code < 0x80 ? raw : nfkc(raw);
    for (const char of text) {
      if (/\s/.test(char)) {
        // A run of whitespace becomes one space (a line break if it holds one); letter-spaced text
        // keeps a second space, which marks the word breaks between its spaced-out words.
        const newline = char === "\n";
        if (run > 0 && run >= maxRun) {
          if (newline) out.replaceLast("\n");
          continue;
        }
        out.push(newline ? "\n" : " ", i);
        run++;
        continue;
      }
      const ascii = char.length === 1 && char.charCodeAt(0) < 0x80;
      if (!ascii && isInvisible(char)) continue;
      run = 0;
      if (ascii) {
        out.push(o.lowerCase ? char.toLowerCase() : char, i);
        continue;
      }
      if (o.dropMarks && LOOSE_MARK.test(char)) continue;
      const unified = o.unifySeparators ? unifySeparator(char) : char;
      let folded = o.foldConfusables && unified === char ? fold(char) : unified;
      if (o.ambiguousAsI && folded === "l" && isIOrL(char)) folded = "i";
      out.push(o.lowerCase ? folded.toLowerCase() : folded, i);
    }
    i += length;
  }
  return out.done(source.length);
}

/** Maps `inner` (a view of `outer.text`) back to `outer`'s source. */
function compose(outer: ScreeningView, inner: ScreeningView): ScreeningView {
  const origin = new Int32Array(inner.origin.length);
  for (let k = 0; k < origin.length; k++) origin[k] = outer.origin[inner.origin[k]!]!;
  return { text: inner.text, origin };
}

const LETTER = /^[\p{L}\p{N}]$/u;
const GAP = /^[ ._*-]$/;

/**
 * Joins runs of at least three single letters separated by one space or one `.`/`-`/`_`/`*`:
 * `i g n o r e  p r e v i o u s` → `ignore previous` (a double gap is a word break: one space stays).
 */
function joinSpaced(view: ScreeningView): ScreeningView {
  const s = view.text;
  const chars = [...s];
  // Code point index → UTF-16 index, so origins stay right for astral characters.
  const at: number[] = [];
  let u = 0;
  for (const c of chars) {
    at.push(u);
    u += c.length;
  }
  const letter = (k: number) => LETTER.test(chars[k] ?? "");
  const single = (k: number) => letter(k) && !letter(k - 1) && !letter(k + 1);
  const gap = (k: number) => GAP.test(chars[k] ?? "");
  const drop = new Uint8Array(chars.length);
  let changed = false;
  let k = 0;
  while (k < chars.length) {
    if (!single(k)) {
      k++;
      continue;
    }
    let end = k;
    let letters = 1;
    const dropped: number[] = [];
    for (;;) {
      if (gap(end + 1) && single(end + 2)) {
        dropped.push(end + 1);
        end += 2;
      } else if (gap(end + 1) && gap(end + 2) && single(end + 3)) {
        dropped.push(end + 2);
        end += 3;
      } else break;
      letters++;
    }
    if (letters >= 3) {
      for (const d of dropped) drop[d] = 1;
      changed = true;
    }
    k = end + 1;
  }
  if (!changed) return view;
  const out = new ViewBuilder();
  for (let c = 0; c < chars.length; c++) if (!drop[c]) out.push(chars[c]!, view.origin[at[c]!]!);
  const joined = out.done(0);
  joined.origin[joined.text.length] = view.origin[s.length]!;
  return joined;
}

/**
 * The text a screener should read, with a source index for every character. Linear in the input:
 * each step looks at a bounded window (an escape is at most 12 characters).
 */
export function screeningView(source: string, options: ScreeningOptions = {}): ScreeningView {
  let view = pass(source, options, options.decode ?? false);
  // Double encoding (`&amp;lt;`, `%253C`) takes a second decode.
  if (options.decode && /[%&\\]/.test(view.text)) {
    const again = pass(view.text, { ...options, foldConfusables: false, lowerCase: false }, true);
    if (again.text !== view.text) view = compose(view, again);
  }
  if (options.joinSpacedLetters) {
    const joined = joinSpaced(view);
    if (joined !== view) view = joined;
  }
  return view;
}

/** Quick test: could `screeningView` differ from the text itself? (Plain printable ASCII cannot.) */
export function mayNeedScreening(text: string, options: Pick<ScreeningOptions, "decode">): boolean {
  return options.decode
    ? /[^\t\n\r\x20-\x7e]|[ \t]{2}|%[0-9A-Fa-f]{2}|&#?\w{1,10};|\\[uxnrt]/.test(text)
    : /[^\t\n\r\x20-\x7e]|[ \t]{2}/.test(text);
}
