import { createRequire } from "node:module";
import type validator from "validator";

// Only the four checks used, not the package's index: its 110 modules held several MB in every process.
const load = createRequire(import.meta.url);
const isEmail = load("validator/lib/isEmail") as typeof validator.isEmail;
const isIP = load("validator/lib/isIP") as typeof validator.isIP;
const isLuhnNumber = load("validator/lib/isLuhnNumber") as typeof validator.isLuhnNumber;
const isIdentityCard = load("validator/lib/isIdentityCard") as typeof validator.isIdentityCard;

/**
 * The redaction patterns. Each is one regex pass. Every pattern starts at a literal or behind a
 * negative lookbehind for its own characters and keeps its quantifiers bounded or deterministic, so a
 * match can only start at the beginning of a token and no input makes a pattern backtrack more than
 * a constant. Checksums and final validation live in the replacer, not the regex, so look-alikes
 * (wrong Luhn, wrong ID checksum, `999.1.1.1`, `12:30:45`) are kept as they are.
 */

/** What a rule does with one match: the placeholder, or the match itself when validation fails. */
export type Replacer = (match: string, ...groups: string[]) => string;

export interface Rule {
  pattern: RegExp;
  replace: Replacer;
}

export const always =
  (placeholder: string): Replacer =>
  () =>
    placeholder;

const when =
  (accept: (match: string) => boolean, placeholder: string): Replacer =>
  (match) =>
    accept(match) ? placeholder : match;

/**
 * Separators between the digits of a grouped number, one at a time: space, `-` (the screening view
 * reads every dash as `-`), `_`, `/`. IDs take `.` too (`440304.19900307.123X`); for cards and
 * phones the dotted groupings are the fixed ones below, since version numbers and addresses are dotted.
 */
const SEP = "[ _/-]";
const ID_SEP = "[ ._/-]";
const SEPARATORS = /[ ._/-]/g;
/**
 * A flexible grouping is a whole token: it starts where no word, `+` or `.` goes on and not right after
 * a letter or digit and a `.`, `_`, `/` or `-`, and it ends where neither a letter or digit nor such a
 * separator and a letter or digit follows (a UUID's `57444139-7298-4525-…` is one token, not a card).
 */
const FLEX_START = "(?<![\\w.+]|\\w[._/-])";
const FLEX_END = "(?![._/-]?\\w)";

// Order matters: tokens and secrets contain digit runs that would otherwise look like cards or phones,
// so credentials run first. Then emails before numbers (QQ addresses are phone numbers); ID numbers
// before cards (18 digits can pass Luhn); cards before phones; IPs before phones so dotted quads are
// never read as digit groups.

/** Credentials: tokens, API keys, bearer/basic credentials, passwords. Redacted everywhere, Slack too. */
export const CREDENTIAL_RULES: readonly Rule[] = [
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
    // Short `sk-` keys (test keys, proxies' keys): letters and digits mixed, so `sk-learn` stays.
    pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{8,19}(?![A-Za-z0-9_-])/g,
    replace: when((m) => /\d/.test(m.slice(3)) && /[A-Za-z]/.test(m.slice(3)), "[secret]"),
  },
  {
    // Keep the scheme word so the log still says what kind of credential was there.
    pattern: /(?<![A-Za-z0-9])(bearer|basic)[ \t]+([A-Za-z0-9._~+/-]+=*)/gi,
    replace: (match, scheme = "", token = "") =>
      (scheme.toLowerCase() === "basic" ? isBasicCredential(token) : looksLikeToken(token))
        ? `${scheme} [secret]`
        : match,
  },
  {
    // `postgres://user:password@host` — only the password goes.
    pattern: /(:\/\/[^\s/?#@:]{0,256}:)([^\s/?#@]{1,256})@/g,
    // A placeholder another rule already wrote (`[secret]`, `[phone]`) stays: a second pass changes nothing.
    replace: (match, prefix = "", password = "") =>
      /^\[[a-z_]+\]$/.test(password) ? match : `${prefix}[secret]@`,
  },
  {
    // `password=…`, `"api_key": "…"`, `X-Api-Key: …` in free text. The value may not start with `[`
    // so an earlier, more specific placeholder is kept and a second pass changes nothing.
    pattern:
      /(?<![A-Za-z0-9[])(passw(?:or)?d|secret|api[_-]?key|token|authorization)(["']?[ \t]{0,4}[:=][ \t]{0,4}["']?)([^\s"'`&,;<>()[\]{}]+)/gi,
    replace: (match, key = "", separator = "", value = "") =>
      /^(?:bearer|basic)$/i.test(value) ? match : `${key}${separator}[secret]`,
  },
];

/** Personal data: emails, ID numbers, cards, IPs, phones. Redacted from logs, traces and the audit log. */
export const PII_RULES: readonly Rule[] = [
  {
    // `。` (the ideographic full stop; NFKC makes `｡` one) is read as the dot it stands for.
    pattern:
      /(?<![A-Za-z0-9_%+-])[A-Za-z0-9_%+-][A-Za-z0-9._%+\u3002-]{0,63}@(?:[A-Za-z0-9-]{1,63}[.\u3002]){1,8}[A-Za-z]{2,63}(?![A-Za-z0-9-])/g,
    replace: when((m) => isEmail(m.replaceAll("\u3002", ".")), "[email]"),
  },
  {
    // 18 characters, grouped or not: one separator (space, `.`, `-`, `_`, `/`) at most between two.
    // The replacer reads the digits without separators and checks region, date and check character.
    pattern: new RegExp(`(?<![\\w.])[1-9](?:${ID_SEP}?\\d){16}${ID_SEP}?[\\dXx](?!\\w|\\.\\d)`, "g"),
    replace: when((m) => isChineseResidentId(m.replace(SEPARATORS, "")), "[cn_id]"),
  },
  {
    // Contiguous 13–19 digits, or the printed groupings (4-4-4-4[-3], Amex 4-6-5, Diners 4-6-4).
    // The first digit must be 2–6 (payment networks' industry identifier): this keeps epoch
    // milliseconds (`17…`, until 2033) and 13-digit `86…` phone numbers out of the card rule.
    pattern:
      /(?<![\w.+])(?:[2-6]\d{3}([ .-])\d{4}\1\d{4}\1\d{1,4}(?:\1\d{3})?|[2-6]\d{3}([ -])\d{6}\2\d{4,5}|[2-6]\d{12,18})(?!\w|\.\d)/g,
    replace: (match) => redactCard(match),
  },
  {
    // Any other grouping, or other separators (`_`, `/`, a dash the view unified), one at most
    // between two digits: 4111_1111_1111_1111, 4 1 1 1 …, 4111/1111/1111/1111.
    pattern: new RegExp(`${FLEX_START}[2-6](?:${SEP}?\\d){12,18}${FLEX_END}`, "g"),
    replace: (match) => redactDigits(match, 13, (digits) => isLuhnNumber(digits), "[card]"),
  },
  {
    pattern:
      /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{1,4})?(?![\w:]|\.\d)/g,
    // Requiring a digit keeps hex-word look-alikes such as `dead::beef` or `a::b` in code.
    replace: when((m) => /\d/.test(m) && isIP(m, 6), "[ip]"),
  },
  {
    pattern: /(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?!\w|\.\d)/g,
    replace: when((m) => isIP(m, 4), "[ip]"),
  },
  {
    // `+<country> …` in any grouping; the replacer counts digits (E.164: at most 15).
    // Not after a word character: `1.2.3+20261129` is semver build metadata, `a+1234…` an expression.
    // `0086` is the same prefix dialled from mainland China.
    pattern: /(?<![\w+])(?:\+\d+|0086)(?:[ _/-]?\(\d+\)|[ _/-]?\d+)*/g,
    replace: (match) => redactInternationalPhone(match),
  },
  {
    // Chinese mobiles without `+`: 13800138000, 138 0013 8000, 138.0013.8000, 8613800138000.
    pattern: /(?<![\w.+])(?:(?:00)?86[ -]?)?1[3-9]\d(?:[ .-]?\d{4}){2}(?!\w|\.\d)/g,
    replace: always("[phone]"),
  },
  {
    // The same in any grouping or with other separators: 138_1234_5678, 1 3 8 1 2 3 4 5 6 7 8.
    pattern: new RegExp(`${FLEX_START}(?:(?:00)?86${SEP}?)?1${SEP}?[3-9](?:${SEP}?\\d){9}${FLEX_END}`, "g"),
    replace: always("[phone]"),
  },
  {
    // North American local formats: (415) 555-0132, 415-555-0132, 1-415-555-0132.
    pattern: /(?<![\w.+-])(?:1[ -])?(?:\(\d{3}\)[ -]?|\d{3}-)\d{3}-\d{4}(?![\w-]|\.\d)/g,
    replace: always("[phone]"),
  },
];

// Every rule above needs one of these: `@`, `:`, a dotted digit (IPv4), a run of 7+ digits and
// separators (phones, cards, ID numbers), or a token prefix / secret keyword. Text with none cannot
// change — most of what gets logged (names, counts, short ids) — so it skips the passes entirely.
export const MAY_MATCH =
  /[@:]|\d\.\d|\d[\d\s()._/+-]{5,}\d|xox|xapp|sk[-_]|gh[opsur]_|github_pat_|AKIA|ASIA|bearer|basic|passw|secret|api[_-]?key|token|authorization/i;

function looksLikeToken(token: string): boolean {
  // `Bearer authentication` in prose is not a credential; real tokens have digits or are long.
  return token.length >= 8 && (/\d/.test(token) || token.length >= 24);
}

/** `Basic …` is base64 of `user:password`. */
function isBasicCredential(token: string): boolean {
  if (token.length < 8) return false;
  return Buffer.from(token, "base64").toString("utf8").includes(":");
}

function redactCard(match: string): string {
  // validator ignores spaces and dashes between groups, not dots.
  const luhn = (digits: string) => isLuhnNumber(digits.replace(/\./g, ""));
  if (luhn(match)) return "[card]";
  // A trailing 3-digit group may be something else (`… 1111 123 apples`): retry without it.
  const lastGroup = /[ .-]\d{3}$/.exec(match);
  if (lastGroup && /[ .-].*[ .-].*[ .-].*[ .-]/.test(match)) {
    const head = match.slice(0, lastGroup.index);
    if (luhn(head)) return `[card]${match.slice(lastGroup.index)}`;
  }
  return match;
}

/**
 * A number grouped with separators: the whole of it when its digits pass `valid`, else its longest
 * prefix of whole groups (at least `min` digits) that does, the rest kept; unchanged when none does.
 */
function redactDigits(match: string, min: number, valid: (digits: string) => boolean, placeholder: string) {
  for (let end = match.length; end > 0; end = lastSeparator(match, end)) {
    const digits = match.slice(0, end).replace(SEPARATORS, "");
    if (digits.length < min) break;
    if (valid(digits)) return `${placeholder}${match.slice(end)}`;
  }
  return match;
}

/** Index of the last separator before `end` (0 when there is none). */
function lastSeparator(text: string, end: number): number {
  for (let i = end - 1; i > 0; i--) if (!/\d/.test(text[i]!)) return i;
  return 0;
}

function redactInternationalPhone(match: string): string {
  // Take the longest run of whole groups that is still a plausible E.164 number (8–15 digits),
  // so trailing numbers after a phone do not make the whole phone unrecognisable. `0086` counts as
  // `+86`; after it at least a mobile's or a landline's national number (9 digits) must follow.
  const dialled = match.startsWith("0086");
  const groups = match.slice(dialled ? 4 : 0).match(/\+\d+|[ _/-]?\(\d+\)|[ _/-]?\d+/g) ?? [];
  let digits = dialled ? 2 : 0;
  let length = dialled ? 4 : 0;
  const least = dialled ? 11 : 8;
  let best = 0;
  for (const group of groups) {
    digits += group.replace(/\D/g, "").length;
    length += group.length;
    if (digits > 15) break;
    if (digits >= least) best = length;
  }
  return best === 0 ? match : `[phone]${match.slice(best)}`;
}

/**
 * A Chinese resident ID: validator checks the region, a real birth date not in the future and the
 * ISO 7064 MOD 11-2 check character. Its region list lacks 83 (residence permits of Taiwan residents,
 * issued since 2018): those are checked as region 32, whose two digits weigh the same in the check
 * character (7·8 + 9·3 ≡ 7·3 + 9·2 mod 11), so the date and checksum are still validator's.
 */
function isChineseResidentId(id: string): boolean {
  return isIdentityCard(id.startsWith("83") ? `32${id.slice(2)}` : id, "zh-CN");
}
