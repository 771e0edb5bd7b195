import { isUtf8 } from "node:buffer";
import { escapeRegExp } from "../core/escape-regexp.ts";
import { mayNeedScreening, screeningView } from "../core/normalize-text.ts";
import { applySpans, findSpans } from "./apply-rules.ts";
import { always, CREDENTIAL_RULES, MAY_MATCH, PII_RULES, type Rule } from "./redact-rules.ts";
import type { SecretValues } from "./secret-values.ts";

/**
 * Secret and PII redaction for everything that reaches logs, traces, the audit log — and, for
 * credentials only, what Hermes posts to Slack.
 *
 * Text is read the way a person would read it: the rules run on a screening view (NFKC, so
 * full-width `１３８` and `＠` count; invisible characters dropped; look-alike letters folded; every
 * dash read as `-`; `%XX`, HTML entities and `\uXXXX` escapes decoded; whitespace runs collapsed), and
 * each finding is cut out of the ORIGINAL text: the output is the input with only the sensitive spans
 * replaced by typed placeholders (`[email]`, `[phone]`, `[card]`, `[secret]`, …). Numbers are read
 * through single separators (`440304 19900307 123X`, `138_1234_5678`, `4111/1111/1111/1111`). Base64
 * runs, wrapped over lines or not, are decoded and replaced whole when what they hide is sensitive.
 * Configured secret values (`SecretValues`) go by exact value, raw and encoded, also when a line break
 * or invisible characters split them. All of it is linear in the input: bounded-window decoding,
 * rules that cannot backtrack more than a constant, a bounded number of rounds, and a cap on how much
 * base64 one string may make us decode.
 *
 * How long one match can be: there is no bound in characters of the original text. The view drops
 * invisible characters, collapses whitespace runs and decodes escapes (up to 12 characters for one),
 * so one character read can stand for any number written; and some credentials have no length limit
 * (base64 runs and their wrapped lines, Slack and `sk-` tokens, `password=` values, bearer tokens,
 * `+<country>` digit groups). Personal data is bounded in characters read: a Chinese resident ID 35
 * (18 characters, a separator between each two), a card 37 (19 digits, 18 separators), a Chinese
 * mobile 26 (`0086`, a separator, 11 digits, 10 separators), an email 640 (64 + `@` + 8 labels of 64
 * with their dots + 63), a North American number 16, an IPv4 address 15, an IPv6 address 50. A
 * configured value with its gaps is at most 19 characters per character of its longest form (a line
 * break, CR and 16 spaces or tabs of indentation, or 8 invisible characters, between two).
 */

export interface Redactor {
  /** A redacted deep copy (secrets and PII): for logs, traces and the audit log. */
  redact(value: unknown): unknown;
  /**
   * `redact` for a value that is only serialized (a log line): the value itself when redacting it
   * would change nothing (most trace lines), so nothing is copied; a redacted deep copy otherwise.
   */
  redactForLog(value: unknown): unknown;
  /** Secrets and PII in one string. */
  redactText(text: string): string;
  /**
   * Credentials only (configured values, tokens, keys, passwords; personal data kept): for what
   * people read in Slack, where a phone number the requester asked for is the answer.
   */
  redactSecrets(text: string): string;
  /** `redactSecrets` over every string in a value (deep copy). */
  redactSecretsDeep(value: unknown): unknown;
}

const MAX_ROUNDS = 4;
/** Longest text that is normalized and decoded; past it the rules run on the raw text only. */
const MAX_SCREENED = 256 * 1024;
/** Base64 characters decoded per top-level string (a big attachment is not decoded in full). */
const MAX_DECODED = 64 * 1024;
/**
 * A base64 run, and the lines that continue it when it is wrapped (PEM, MIME and `base64` wrap at 64
 * or 76 columns, a careless copy anywhere): a continuation is a whole line of base64 characters, its
 * padding the run's end. A first line shorter than 16 characters counts only when continued.
 */
const BASE64_RUN =
  /(?<![A-Za-z0-9+/_-])(?:[A-Za-z0-9+/_-]{16,}(?:(?:\r?\n[A-Za-z0-9+/_-]+)+(?==?=?(?:[\r\n]|$)))?|[A-Za-z0-9+/_-]{4,15}(?:\r?\n[A-Za-z0-9+/_-]+)+(?==?=?(?:[\r\n]|$)))={0,2}/g;
/**
 * Between two characters of a configured secret value: a line break (and up to 16 spaces or tabs of
 * indentation) or up to 8 invisible characters (the screening view drops every default-ignorable one;
 * this list is for text read raw).
 */
const SECRET_GAP =
  "(?:\\r?\\n[ \\t]{0,16}|[\\u00AD\\u034F\\u061C\\u180E\\u200B-\\u200F\\u202A-\\u202E\\u2060-\\u206F\\uFE00-\\uFE0F\\uFEFF]{1,8})?";
/** Strings found clean are remembered (bounded) so logs' repeated session keys and ids are not rescanned. */
const CACHED_LENGTH = 200;
const CACHED_ENTRIES = 1000;

type Mode = "all" | "secrets";

/** A redactor that also removes `secrets` by exact value (and their URL-encoded and base64 forms). */
export function createRedactor(options: { secrets?: SecretValues } = {}): Redactor {
  const { secrets } = options;
  let version = -1;
  let secretRule: Rule | undefined;
  const clean = { all: new Set<string>(), secrets: new Set<string>() };
  let decodeBudget = 0;

  const refresh = () => {
    if (!secrets || secrets.version === version) return;
    version = secrets.version;
    const forms = secrets.forms();
    secretRule =
      forms.length === 0
        ? undefined
        : { pattern: new RegExp(forms.map(spacedForm).join("|"), "g"), replace: always("[secret]") };
    sets = undefined;
    // A string that was clean may hold a value added since.
    clean.all.clear();
    clean.secrets.clear();
  };

  /** Whether base64 `run` hides something sensitive (within the decode budget). */
  const hidesSecret = (run: string, mode: Mode, depth: number): boolean => {
    if (decodeBudget < run.length) return false;
    decodeBudget -= run.length;
    const decoded = decodeBase64Text(run);
    return decoded !== undefined && scan(decoded, mode, depth + 1) !== decoded;
  };

  const base64Rule = (mode: Mode, depth: number): Rule => ({
    pattern: BASE64_RUN,
    replace: (match) => {
      if (depth > 0) return match;
      if (!match.includes("\n")) return hidesSecret(match, mode, depth) ? "[secret]" : match;
      // Wrapped anywhere: the lines joined; else block by block (a token, then text after it).
      if (hidesSecret(match.replace(/\r?\n/g, ""), mode, depth)) return "[secret]";
      return wrappedBase64(match, (run) => hidesSecret(run, mode, depth));
    },
  });

  // Rule lists per mode and depth, rebuilt when the secret values change: text that no pattern's
  // prefilter (`MAY_MATCH`) can match only needs the base64 rule.
  type RuleSets = Record<Mode, Array<{ every: Rule[]; base64: Rule[] }>>;
  let sets: RuleSets | undefined;
  const rulesFor = (mode: Mode, depth: number, every: boolean): Rule[] => {
    if (!sets) {
      const build = (m: Mode) =>
        [0, 1].map((d) => {
          const base64 = base64Rule(m, d);
          return {
            every: [
              ...(secretRule ? [secretRule] : []),
              ...CREDENTIAL_RULES,
              ...(m === "all" ? PII_RULES : []),
              base64,
            ],
            base64: [base64],
          };
        });
      sets = { all: build("all"), secrets: build("secrets") };
    }
    const set = sets[mode][Math.min(depth, 1)]!;
    return every ? set.every : set.base64;
  };

  function scan(text: string, mode: Mode, depth: number): string {
    // A secret spelled with characters the view would change (`%`, `&`) is still caught as typed.
    const source = secretRule ? text.replace(secretRule.pattern, "[secret]") : text;
    const screen = source.length <= MAX_SCREENED && mayNeedScreening(source, { decode: true });
    const view = screen
      ? screeningView(source, { decode: true, foldConfusables: true, unifySeparators: true })
      : undefined;
    const read = view?.text ?? source;
    // A configured value the view put back together (invisible characters dropped) has no keyword.
    const every =
      MAY_MATCH.test(read) ||
      (view !== undefined && secretRule !== undefined && read.search(secretRule.pattern) >= 0);
    if (!every && !hasBase64Run(read)) return source;
    const spans = findSpans(read, rulesFor(mode, depth, every), MAX_ROUNDS);
    if (spans.length === 0) return source;
    return applySpans(source, view?.origin, spans);
  }

  function cached(text: string, mode: Mode): string {
    refresh();
    const short = text.length <= CACHED_LENGTH;
    const seen = clean[mode];
    if (short && seen.has(text)) return text;
    // A run's id is new on every line's bindings: scanning it (a base64 run, decoded) was the largest
    // part of a trace's redaction. Only a configured secret value can make one change.
    if (isUuid(text) && !(secretRule && text.search(secretRule.pattern) >= 0)) return text;
    decodeBudget = MAX_DECODED;
    const out = scan(text, mode, 0);
    if (short && out === text) {
      if (seen.size >= CACHED_ENTRIES) seen.clear();
      seen.add(text);
    }
    return out;
  }

  const redactText = (text: string) => cached(text, "all");
  const redactSecrets = (text: string) => cached(text, "secrets");
  return {
    redactText,
    redactSecrets,
    redact: (value) => redactValue(value, walk(redactText)),
    redactForLog: (value) =>
      wouldChange(value, redactText, 0) ? redactValue(value, walk(redactText)) : value,
    redactSecretsDeep: (value) => redactValue(value, walk(redactSecrets)),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A UUID in its canonical form (lower-case hex): an identifier. No rule matches one (too few digits
 * in a row for a phone or card, no `@`, no token prefix), and what its characters decode to as base64
 * cannot hold a match either (lower-case hex decodes to a digit at most every third character, and
 * never to `@`), so redacting one returns it unchanged: it is not scanned. test/policy/redact.test.ts
 * checks that against the full scan for random ones.
 */
function isUuid(text: string): boolean {
  return text.length === 36 && UUID.test(text);
}

function hasBase64Run(text: string): boolean {
  BASE64_RUN.lastIndex = 0;
  const found = BASE64_RUN.test(text);
  BASE64_RUN.lastIndex = 0;
  return found;
}

/**
 * A wrapped base64 run with its secrets replaced: each block of lines as wide as its first (the last
 * line of a block may be shorter) is decoded joined, then without its last line (text after a token);
 * a block that hides nothing is kept. Each line is decoded at most twice here.
 */
function wrappedBase64(match: string, hidesSecret: (run: string) => boolean): string {
  const lines = match.split("\n");
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const width = bare(lines[i]!).length;
    let end = i + 1;
    while (end < lines.length && bare(lines[end - 1]!).length === width && bare(lines[end]!).length <= width)
      end++;
    const block = lines.slice(i, end);
    if (hidesSecret(block.map(bare).join("")))
      out.push(`[secret]${block.at(-1)!.endsWith("\r") ? "\r" : ""}`);
    else if (end - i > 1 && hidesSecret(block.slice(0, -1).map(bare).join(""))) {
      out.push(`[secret]${block.at(-2)!.endsWith("\r") ? "\r" : ""}`, block.at(-1)!);
    } else out.push(...block);
    i = end;
  }
  return out.join("\n");
}

/** A line without its carriage return. */
const bare = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line);

/** The text a base64 run encodes, when it is readable text (random ids and hashes decode to noise). */
function decodeBase64Text(run: string): string | undefined {
  const bytes = Buffer.from(run, "base64");
  if (bytes.length < 8 || !isUtf8(bytes)) return undefined;
  const text = bytes.toString("utf8");
  // Printable text only: control characters other than tab and line breaks mean it was not text.
  return /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text) ? undefined : text;
}

/** A configured value as a pattern that also finds it split by a line break or invisible characters. */
function spacedForm(form: string): string {
  return Array.from(form, escapeRegExp).join(SECRET_GAP);
}

const defaultRedactor = createRedactor();

/** Replaces secrets and PII in `text` with typed placeholders (`[email]`, `[phone]`, `[card]`, …). */
export const redactText = defaultRedactor.redactText;

/** Credentials only (tokens, keys, passwords), by pattern: for Slack surfaces built without a redactor. */
export const redactSecrets = defaultRedactor.redactSecrets;

/** True when `redactText` would change `text`. */
export function containsSensitive(text: string): boolean {
  return redactText(text) !== text;
}

/**
 * A redacted deep copy of `value`: strings anywhere inside are scanned, values under secret-named
 * keys become `[secret]`, keys are kept, and the input is never mutated. Shared and cyclic
 * references are preserved as shared and cyclic references in the copy.
 */
export const redact = defaultRedactor.redact;

/** `redact` for what is only serialized: the value itself when nothing in it is sensitive (no copy). */
export const redactForLog = defaultRedactor.redactForLog;

/**
 * One deep copy in progress: the text function and the copies made so far (cycles, sharing). A Map,
 * not a WeakMap: it lives for one copy, and a WeakMap's entries cost the garbage collector extra work
 * (a log line is one copy; a trace makes several per turn).
 */
interface Walk extends Map<object, unknown> {
  text: (text: string) => string;
}

function walk(text: (text: string) => string): Walk {
  return Object.assign(new Map<object, unknown>(), { text });
}

// Matched against the end of a key, so `accessToken` and `x-api-key` count but `max_tokens` does not.
const SECRET_KEY = /(?:passw(?:or)?d|secret|token|api[_-]?key|authorization|cookie|private[_-]?key)$/i;
/** Keys seen so far and whether they name a secret: logs repeat the same few dozen keys. */
const secretKeys = new Map<string, boolean>();
const SECRET_KEYS_CACHED = 2000;

function isSecretKey(key: string): boolean {
  let secret = secretKeys.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key);
    if (secretKeys.size >= SECRET_KEYS_CACHED) secretKeys.clear();
    if (key.length <= 64) secretKeys.set(key, secret);
  }
  return secret;
}

/** Deeper than this, `wouldChange` does not look: it answers true and the copy is made (and handles cycles). */
const MAX_CHECK_DEPTH = 32;

/**
 * Whether `redactValue` would return anything but `value` itself, read only (no copy, no Map). What
 * it does not vouch for (class instances, Maps, Errors, `toJSON`, bigints, a deep or cyclic value)
 * counts as a change, so the copy decides those exactly as before.
 */
function wouldChange(value: unknown, text: (text: string) => string, depth: number): boolean {
  if (typeof value === "string") return text(value) !== value;
  if (typeof value === "number") {
    if (Math.abs(value) < 1e7) return false;
    const asText = String(value);
    return text(asText) !== asText;
  }
  if (typeof value !== "object" || value === null) return typeof value === "bigint";
  if (depth >= MAX_CHECK_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (wouldChange(item, text, depth + 1)) return true;
    return false;
  }
  if (value instanceof Date) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return true;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === "function") return true;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (item !== null && item !== undefined && isSecretKey(key)) return true;
    if (wouldChange(item, text, depth + 1)) return true;
  }
  return false;
}

function redactEntry(key: string, value: unknown, seen: Walk): unknown {
  // null/undefined say "not set", which is useful and reveals nothing.
  if (value !== null && value !== undefined && isSecretKey(key)) return "[secret]";
  return redactValue(value, seen);
}

function redactValue(value: unknown, seen: Walk): unknown {
  if (typeof value === "string") return seen.text(value);
  if (typeof value === "number" || typeof value === "bigint") {
    // A phone or card stored as a number would otherwise slip through; the placeholder is a string.
    // Below 10^7 a number has too few digits to be either (and counts, ids, ms are all small).
    if (typeof value === "number" && Math.abs(value) < 1e7) return value;
    const text = String(value);
    const redacted = seen.text(text);
    return redacted === text ? value : redacted;
  }
  if (typeof value !== "object" || value === null) return value;

  const known = seen.get(value);
  if (known !== undefined) return known;

  if (value instanceof Date || value instanceof RegExp || ArrayBuffer.isView(value)) return value;
  if (value instanceof ArrayBuffer) return value;

  if (Array.isArray(value)) {
    const out: unknown[] = [];
    seen.set(value, out);
    for (const item of value) out.push(redactValue(item, seen));
    return out;
  }
  if (value instanceof Map) {
    const out = new Map<unknown, unknown>();
    seen.set(value, out);
    for (const [key, item] of value) {
      out.set(key, typeof key === "string" ? redactEntry(key, item, seen) : redactValue(item, seen));
    }
    return out;
  }
  if (value instanceof Set) {
    const out = new Set<unknown>();
    seen.set(value, out);
    for (const item of value) out.add(redactValue(item, seen));
    return out;
  }
  if (value instanceof Error) return redactError(value, seen);

  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    // What a serializer would write anyway (URL → string, Decimal → string, …).
    const out = redactValue(toJSON.call(value), seen);
    seen.set(value, out);
    return out;
  }

  const out: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  seen.set(value, out);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) out[key] = redactEntry(key, record[key], seen);
  return out;
}

/** Keeps the prototype (so `instanceof` and log serializers still see an error) and every own property. */
function redactError(error: Error, seen: Walk): Error {
  const out = Object.create(Object.getPrototypeOf(error) as object) as Error;
  seen.set(error, out);
  for (const key of Object.getOwnPropertyNames(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (!descriptor) continue;
    // Newer V8 makes `stack` an own accessor; copy what it returns as a plain value.
    const item = "value" in descriptor ? descriptor.value : Reflect.get(error, key);
    Object.defineProperty(out, key, {
      value: redactEntry(key, item, seen),
      enumerable: descriptor.enumerable ?? false,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
