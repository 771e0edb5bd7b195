import validator from "validator";

/**
 * Secret and PII redaction for everything that reaches logs or the audit log.
 *
 * Each pattern is one regex pass. Every pattern starts at a literal or behind a negative lookbehind
 * for its own characters and keeps its quantifiers bounded or deterministic, so a match can only
 * start at the beginning of a token and no input makes a pattern backtrack more than a constant.
 * Checksums and final validation live in the replacer, not the regex, so look-alikes (wrong Luhn,
 * wrong ID checksum, `999.1.1.1`, `12:30:45`) are kept as they are.
 */

/** What a rule does with one match: the placeholder, or the match itself when validation fails. */
type Replacer = (match: string, ...groups: string[]) => string;

interface Rule {
  pattern: RegExp;
  replace: Replacer;
}

const always =
  (placeholder: string): Replacer =>
  () =>
    placeholder;

const when =
  (accept: (match: string) => boolean, placeholder: string): Replacer =>
  (match) =>
    accept(match) ? placeholder : match;

// Order matters: tokens and secrets contain digit runs that would otherwise look like cards or phones;
// emails before numbers (QQ addresses are phone numbers); ID numbers before cards (18 digits can pass
// Luhn); cards before phones; IPs before phones so dotted quads are never read as digit groups.
const RULES: readonly Rule[] = [
  {
    // Bot/user/app tokens and incoming-webhook URLs (the URL itself is the credential).
    pattern:
      /(?<![A-Za-z0-9])(?:(?:xoxe\.)?xox[abposre]-[A-Za-z0-9-]+|xapp-[A-Za-z0-9-]+|https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+)/g,
    replace: always("[slack_token]"),
  },
  {
    // OpenAI (`sk-`, `sk-proj-`), Stripe-style (`sk_live_`), GitHub, AWS access key ids.
    pattern:
      /(?<![A-Za-z0-9_-])(?:sk-[A-Za-z0-9_-]{20,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|gh[opsur]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9]))/g,
    replace: always("[secret]"),
  },
  {
    // Keep the scheme word so the log still says what kind of credential was there.
    pattern: /(?<![A-Za-z0-9])(bearer)[ \t]+([A-Za-z0-9._~+/-]+=*)/gi,
    replace: (match, scheme = "", token = "") => (looksLikeToken(token) ? `${scheme} [secret]` : match),
  },
  {
    // `postgres://user:password@host` — only the password goes.
    pattern: /(:\/\/[^\s/?#@:]{0,256}:)([^\s/?#@]{1,256})@/g,
    replace: (match, prefix = "", password = "") => (password === "[secret]" ? match : `${prefix}[secret]@`),
  },
  {
    // `password=…`, `"api_key": "…"`, `X-Api-Key: …` in free text. The value may not start with `[`
    // so an earlier, more specific placeholder is kept and a second pass changes nothing.
    pattern:
      /(?<![A-Za-z0-9[])(passw(?:or)?d|secret|api[_-]?key|token)(["']?[ \t]{0,4}[:=][ \t]{0,4}["']?)([^\s"'`&,;<>()[\]{}]+)/gi,
    replace: (match, key = "", separator = "", value = "") =>
      /^(?:bearer|basic)$/i.test(value) ? match : `${key}${separator}[secret]`,
  },
  {
    pattern:
      /(?<![A-Za-z0-9_%+-])[A-Za-z0-9_%+-][A-Za-z0-9._%+-]{0,63}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,63}(?![A-Za-z0-9-])/g,
    replace: when((m) => validator.isEmail(m), "[email]"),
  },
  {
    pattern:
      /(?<![\w.])[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\w|\.\d)/g,
    replace: when(isChineseResidentId, "[cn_id]"),
  },
  {
    // Contiguous 13–19 digits, or the printed groupings (4-4-4-4[-3], Amex 4-6-5, Diners 4-6-4).
    // The first digit must be 2–6 (payment networks' industry identifier): this keeps epoch
    // milliseconds (`17…`, until 2033) and 13-digit `86…` phone numbers out of the card rule.
    pattern:
      /(?<![\w.+])(?:[2-6]\d{3}([ -])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{3})?|[2-6]\d{3}([ -])\d{6}\2\d{4,5}|[2-6]\d{12,18})(?!\w|\.\d)/g,
    replace: (match) => redactCard(match),
  },
  {
    pattern:
      /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g,
    // Requiring a digit keeps hex-word look-alikes such as `dead::beef` or `a::b` in code.
    replace: when((m) => /\d/.test(m) && validator.isIP(m, 6), "[ip]"),
  },
  {
    pattern: /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?!\w|\.\d)/g,
    replace: when((m) => validator.isIP(m, 4), "[ip]"),
  },
  {
    // `+<country> …` in any grouping; the replacer counts digits (E.164: at most 15).
    // Not after a word character: `1.2.3+20261129` is semver build metadata, `a+1234…` an expression.
    pattern: /(?<![\w+])\+\d+(?:[ -]?\(\d+\)|[ -]?\d+)*/g,
    replace: (match) => redactInternationalPhone(match),
  },
  {
    // Chinese mobiles without `+`: 13800138000, 138 0013 8000, 8613800138000.
    pattern: /(?<![\w.+])(?:86[ -]?)?1[3-9]\d(?:[ -]?\d{4}){2}(?!\w|\.\d)/g,
    replace: always("[phone]"),
  },
  {
    // North American local formats: (415) 555-0132, 415-555-0132, 1-415-555-0132.
    pattern: /(?<![\w.+-])(?:1[ -])?(?:\(\d{3}\)[ -]?|\d{3}-)\d{3}-\d{4}(?![\w-]|\.\d)/g,
    replace: always("[phone]"),
  },
];

const MAX_ROUNDS = 4;

// Every rule above needs one of these: `@`, `:`, a dotted digit (IPv4), a run of 7+ digits and
// separators (phones, cards, ID numbers), or a token prefix / secret keyword. Text with none cannot
// change — most of what gets logged (names, counts, short ids) — so it skips the passes entirely.
const MAY_MATCH =
  /[@:]|\d\.\d|\d[\d\s().+-]{5,}\d|xox|xapp|sk[-_]|gh[opsur]_|github_pat_|AKIA|ASIA|bearer|passw|secret|api[_-]?key|token/i;

/** Replaces secrets and PII in `text` with typed placeholders (`[email]`, `[phone]`, `[card]`, …). */
export function redactText(text: string): string {
  if (!MAY_MATCH.test(text)) return text;
  const short = text.length <= CACHED_LENGTH;
  if (short && clean.has(text)) return text;
  // A placeholder can expose a neighbour that a rule skipped because it was glued to another value
  // (`(415) 555-0132+86…`), so run again until nothing changes. Real text settles in one or two
  // rounds; the bound keeps a pathological chain of glued values from costing a pass per value.
  let out = text;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const next = applyRules(out);
    if (next === out) break;
    out = next;
  }
  if (short && out === text) {
    if (clean.size >= CACHED_ENTRIES) clean.clear();
    clean.add(text);
  }
  return out;
}

// Logs repeat the same short strings on every line (session keys, run ids, timestamps). Strings found
// clean are remembered (bounded) so they are not scanned again; text that held a secret is never kept.
const CACHED_LENGTH = 200;
const CACHED_ENTRIES = 1000;
const clean = new Set<string>();

function applyRules(text: string): string {
  let out = text;
  for (const rule of RULES) out = out.replace(rule.pattern, rule.replace);
  return out;
}

/** True when `redactText` would change `text`. */
export function containsSensitive(text: string): boolean {
  return redactText(text) !== text;
}

/**
 * A redacted deep copy of `value`: strings anywhere inside are scanned, values under secret-named
 * keys become `[secret]`, keys are kept, and the input is never mutated. Shared and cyclic
 * references are preserved as shared and cyclic references in the copy.
 */
export function redact(value: unknown): unknown {
  return redactValue(value, new WeakMap());
}

// Matched against the end of a key, so `accessToken` and `x-api-key` count but `max_tokens` does not.
const SECRET_KEY = /(?:passw(?:or)?d|secret|token|api[_-]?key|authorization|cookie|private[_-]?key)$/i;

function redactEntry(key: string, value: unknown, seen: WeakMap<object, unknown>): unknown {
  // null/undefined say "not set", which is useful and reveals nothing.
  if (SECRET_KEY.test(key) && value !== null && value !== undefined) return "[secret]";
  return redactValue(value, seen);
}

function redactValue(value: unknown, seen: WeakMap<object, unknown>): unknown {
  if (typeof value === "string") return redactText(value);
  if (typeof value === "number" || typeof value === "bigint") {
    // A phone or card stored as a number would otherwise slip through; the placeholder is a string.
    // Below 10^7 a number has too few digits to be either (and counts, ids, ms are all small).
    if (typeof value === "number" && Math.abs(value) < 1e7) return value;
    const text = String(value);
    const redacted = redactText(text);
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

  const proto = Object.getPrototypeOf(value) as object | null;
  const out: Record<string, unknown> = Object.create(proto === null ? null : Object.prototype);
  seen.set(value, out);
  for (const [key, item] of Object.entries(value)) out[key] = redactEntry(key, item, seen);
  return out;
}

/** Keeps the prototype (so `instanceof` and log serializers still see an error) and every own property. */
function redactError(error: Error, seen: WeakMap<object, unknown>): Error {
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

function looksLikeToken(token: string): boolean {
  // `Bearer authentication` in prose is not a credential; real tokens have digits or are long.
  return token.length >= 8 && (/\d/.test(token) || token.length >= 24);
}

function redactCard(match: string): string {
  if (validator.isLuhnNumber(match)) return "[card]";
  // A trailing 3-digit group may be something else (`… 1111 123 apples`): retry without it.
  const lastGroup = /[ -]\d{3}$/.exec(match);
  if (lastGroup && /[ -].*[ -].*[ -].*[ -]/.test(match)) {
    const head = match.slice(0, lastGroup.index);
    if (validator.isLuhnNumber(head)) return `[card]${match.slice(lastGroup.index)}`;
  }
  return match;
}

function redactInternationalPhone(match: string): string {
  // Take the longest run of whole groups that is still a plausible E.164 number (8–15 digits),
  // so trailing numbers after a phone do not make the whole phone unrecognisable.
  const groups = match.match(/\+\d+|[ -]?\(\d+\)|[ -]?\d+/g) ?? [];
  let digits = 0;
  let length = 0;
  let best = 0;
  for (const group of groups) {
    digits += group.replace(/\D/g, "").length;
    length += group.length;
    if (digits > 15) break;
    if (digits >= 8) best = length;
  }
  return best === 0 ? match : `[phone]${match.slice(best)}`;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = "10X98765432";
// First two digits: the provinces, Hong Kong/Macau/Taiwan (81–83) and 91 (overseas).
const ID_REGIONS = new Set([
  11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52, 53, 54, 61,
  62, 63, 64, 65, 71, 81, 82, 83, 91,
]);

/** ISO 7064 MOD 11-2 checksum, a known region and a real birth date not in the future. */
function isChineseResidentId(id: string): boolean {
  if (!ID_REGIONS.has(Number(id.slice(0, 2)))) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(id[i]) * (ID_WEIGHTS[i] ?? 0);
  if (ID_CHECK[sum % 11] !== id[17]?.toUpperCase()) return false;
  const year = Number(id.slice(6, 10));
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  const birth = new Date(Date.UTC(year, month - 1, day));
  return birth.getUTCMonth() === month - 1 && birth.getUTCDate() === day && birth.getTime() <= Date.now();
}
