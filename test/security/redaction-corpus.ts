/**
 * The redaction corpus for hostile spellings: the ways secrets and personal data slip past a scanner
 * that reads characters instead of text (full-width digits and `＠`, zero-width characters inside a
 * number, dotted and spaced groupings, short keys, URL-encoded, HTML-escaped and base64-encoded
 * values), and look-alikes whose checksum is wrong, which must be kept exactly as they are.
 */
import type { NegativeCase, Placeholder, PositiveCase } from "../policy/redaction-cases.ts";
import { WRONG_ID_NOT_LUHN, withCnIdCheck } from "../policy/redaction-cases.ts";

const fullWidth = (s: string) =>
  s.replace(/[0-9A-Za-z@]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

const SLACK_TOKEN = "xoxb-2048-4096-CorpusTokenAbCdEf";
const VALID_ID = withCnIdCheck("44030419900307123");

export const VARIANT_CASES: PositiveCase[] = [
  {
    label: "full-width CN mobile",
    text: `电话 ${fullWidth("13812345678")}`,
    raw: fullWidth("13812345678"),
    placeholder: "[phone]",
  },
  {
    label: "full-width ＠ email",
    text: "mail alice＠example.com today",
    raw: "alice＠example.com",
    placeholder: "[email]",
  },
  { label: "all full-width email", text: fullWidth("bob@example.org"), placeholder: "[email]" },
  { label: "dotted CN mobile", text: "call 138.1234.5678 now", raw: "138.1234.5678", placeholder: "[phone]" },
  { label: "spaced CN mobile", text: "call 138 1234 5678 now", raw: "1234 5678", placeholder: "[phone]" },
  {
    label: "CN mobile with no-break spaces",
    text: "tel 138\u00a01234\u00a05678",
    raw: "1234\u00a05678",
    placeholder: "[phone]",
  },
  {
    label: "zero-width inside a mobile",
    text: "tel 138\u200b0013\u200b8000",
    raw: "0013\u200b8000",
    placeholder: "[phone]",
  },
  {
    label: "full-width valid ID",
    text: `证件 ${fullWidth(VALID_ID)}`,
    raw: fullWidth(VALID_ID),
    placeholder: "[cn_id]",
  },
  {
    label: "card with spaces",
    text: "card 4111 1111 1111 1111 exp",
    raw: "1111 1111 1111",
    placeholder: "[card]",
  },
  {
    label: "card with double spaces",
    text: "card 5555  5555  5555  4444",
    raw: "5555  4444",
    placeholder: "[card]",
  },
  {
    label: "dotted card",
    text: "card 4111.1111.1111.1111",
    raw: "4111.1111.1111.1111",
    placeholder: "[card]",
  },
  { label: "full-width card", text: fullWidth("4111111111111111"), placeholder: "[card]" },
  { label: "short sk- key", text: "key sk-Ab3dE5gH9k here", raw: "sk-Ab3dE5gH9k", placeholder: "[secret]" },
  {
    label: "URL-encoded email",
    text: "?to=alice%40example.com&x=1",
    raw: "alice%40example.com",
    placeholder: "[email]",
  },
  {
    label: "URL-encoded Slack token",
    text: "t=xoxb%2D1234%2D5678%2DAbCdEfGh",
    raw: "1234%2D5678",
    placeholder: "[slack_token]",
  },
  {
    label: "HTML-escaped email",
    text: "mail bob&#64;example.org",
    raw: "bob&#64;example.org",
    placeholder: "[email]",
  },
  {
    label: "\\u-escaped email",
    text: "mail bob\\u0040example.org",
    raw: "bob\\u0040example.org",
    placeholder: "[email]",
  },
  {
    label: "base64 Slack token",
    text: `blob ${b64(SLACK_TOKEN)} end`,
    raw: b64(SLACK_TOKEN),
    placeholder: "[secret]",
  },
  {
    label: "base64 JSON with a key",
    text: b64(JSON.stringify({ api_key: "sk-Zz9Yy8Xx7Ww6Vv5Uu4Tt3" })),
    placeholder: "[secret]",
  },
  {
    label: "Basic credentials",
    text: `Authorization: Basic ${b64("ops:hunter2hunter2")}`,
    raw: b64("ops:hunter2hunter2"),
    placeholder: "[secret]",
  },
  {
    label: "Cyrillic look-alike in a token prefix",
    text: "token хoxb-1234-5678-AbCdEfGh",
    raw: "1234-5678-AbCdEfGh",
    placeholder: "[slack_token]",
  },
];

const grouped = (digits: string, sizes: number[], sep: string) => {
  const parts: string[] = [];
  let at = 0;
  for (const size of sizes) {
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  if (at < digits.length) parts.push(digits.slice(at));
  return parts.join(sep);
};
/** A long text with a Slack token inside, base64-encoded and wrapped every `width` characters. */
const wrappedToken = (width: number, eol = "\n") =>
  b64(`deploy notes for the release train; bot token ${SLACK_TOKEN}; rotate after the freeze`)
    .match(new RegExp(`.{1,${width}}`, "g"))!
    .join(eol);
const CARD = "4111111111111111";
const MOBILE = "13812345678";

/**
 * Separators and spellings a person reads past: grouped ID numbers, `0086`, digits separated by
 * single spaces, `_`, `/` or dashes, `。` in an email, base64 wrapped over lines. Each must be redacted.
 */
export const SEPARATOR_VARIANTS: PositiveCase[] = [
  ...[" ", "-", ".", "_", "/", "\u2013", "\u3000"].map((sep) => ({
    label: `ID grouped 6-8-4 with ${JSON.stringify(sep)}`,
    text: `证件 ${grouped(VALID_ID, [6, 8], sep)} 已核验`,
    raw: grouped(VALID_ID, [6, 8], sep),
    placeholder: "[cn_id]" as const,
  })),
  {
    label: "ID grouped in fours with spaces",
    text: `ID ${grouped(VALID_ID, [4, 4, 4, 4], " ")}`,
    raw: grouped(VALID_ID, [4, 4, 4, 4], " "),
    placeholder: "[cn_id]",
  },
  {
    label: "ID grouped 3-3-4-4-4 with dots",
    text: `ID ${grouped(VALID_ID, [3, 3, 4, 4, 4], ".")}`,
    raw: grouped(VALID_ID, [3, 3, 4, 4, 4], "."),
    placeholder: "[cn_id]",
  },
  {
    label: "full-width ID with full-width hyphens",
    text: `证件 ${fullWidth(grouped(VALID_ID, [6, 8], "－"))}`,
    raw: fullWidth(grouped(VALID_ID, [6, 8], "－")),
    placeholder: "[cn_id]",
  },
  {
    label: "0086 then a spaced mobile",
    text: "tel 0086 138 1234 5678",
    raw: "1234 5678",
    placeholder: "[phone]",
  },
  { label: "0086 glued to a mobile", text: `tel 0086${MOBILE}`, raw: MOBILE, placeholder: "[phone]" },
  { label: "0086 dashed", text: "tel 0086-138-1234-5678.", raw: "1234-5678", placeholder: "[phone]" },
  {
    label: "0086 and a landline",
    text: "office 0086 10 6552 9988",
    raw: "6552 9988",
    placeholder: "[phone]",
  },
  ...[" ", "_", "/", "\u2013", "\u2014", "\u2212", "\u2010"].map((sep) => ({
    label: `mobile grouped 3-4-4 with ${JSON.stringify(sep)}`,
    text: `手机 ${grouped(MOBILE, [3, 4], sep)} 联系`,
    raw: grouped(MOBILE, [3, 4], sep).slice(4),
    placeholder: "[phone]" as const,
  })),
  {
    label: "mobile with every digit spaced",
    text: `call ${MOBILE.split("").join(" ")} now`,
    raw: MOBILE.split("").join(" ").slice(6),
    placeholder: "[phone]",
  },
  { label: "mobile grouped 3-8", text: "call 138 12345678", raw: "12345678", placeholder: "[phone]" },
  {
    label: "mobile grouped 2-3-3-3 with underscores",
    text: "tel 13_812_345_678",
    raw: "345_678",
    placeholder: "[phone]",
  },
  { label: "+86 and underscores", text: "tel +86_138_1234_5678", raw: "1234_5678", placeholder: "[phone]" },
  ...[" ", "_", "/", "\u2013"].map((sep) => ({
    label: `card grouped 4-4-4-4 with ${JSON.stringify(sep)}`,
    text: `card ${grouped(CARD, [4, 4, 4], sep)} exp`,
    raw: grouped(CARD, [4, 4, 4], sep).slice(5),
    placeholder: "[card]" as const,
  })),
  {
    label: "card with every digit spaced",
    text: `card ${CARD.split("").join(" ")}`,
    raw: CARD.split("").join(" ").slice(8),
    placeholder: "[card]",
  },
  {
    label: "card grouped 8-8",
    text: "card 41111111 11111111 exp",
    raw: "11111111 11111111",
    placeholder: "[card]",
  },
  {
    label: "card with underscores and a trailing number",
    text: "card 4111_1111_1111_1111_42",
    raw: "1111_1111_1111",
    placeholder: "[card]",
  },
  {
    label: "email with 。 as the dot",
    text: "mail alice@example。com",
    raw: "alice@example。com",
    placeholder: "[email]",
  },
  {
    label: "email with 。 in the name and the domain",
    text: "写信给 bob。smith@mail。example。org 谢谢",
    raw: "bob。smith@mail。example。org",
    placeholder: "[email]",
  },
  {
    label: "full-width email with a half-width ｡",
    text: `mail ${fullWidth("carol@example")}｡${fullWidth("net")}`,
    raw: `${fullWidth("carol@example")}｡${fullWidth("net")}`,
    placeholder: "[email]",
  },
  {
    label: "base64 wrapped at 76",
    text: `blob\n${wrappedToken(76)}\nend`,
    raw: wrappedToken(76),
    placeholder: "[secret]",
  },
  {
    label: "base64 wrapped at 20",
    text: `blob\n${wrappedToken(20)}`,
    raw: wrappedToken(20),
    placeholder: "[secret]",
  },
  {
    label: "base64 wrapped with CRLF",
    text: `blob\r\n${wrappedToken(64, "\r\n")}\r\n`,
    raw: wrappedToken(64, "\r\n"),
    placeholder: "[secret]",
  },
  {
    label: "base64 split once, unevenly, inside the token",
    text: `blob ${b64(SLACK_TOKEN).slice(0, 13)}\n${b64(SLACK_TOKEN).slice(13)}`,
    raw: b64(SLACK_TOKEN).slice(13),
    placeholder: "[secret]",
  },
  {
    label: "base64 wrapped, then a line of text",
    text: `blob\n${wrappedToken(40)}\nThanks`,
    raw: wrappedToken(40),
    placeholder: "[secret]",
  },
];

/** Near misses of the separator variants: wrong checksums, dates, times, versions, paths. Kept exactly. */
export const SEPARATOR_NEAR_MISSES: NegativeCase[] = [
  { label: "ID with a wrong check digit, spaced", text: `id ${grouped(WRONG_ID_NOT_LUHN, [6, 8], " ")}` },
  { label: "ID with a wrong check digit, dotted", text: `id ${grouped(WRONG_ID_NOT_LUHN, [6, 8], ".")}` },
  { label: "ID with a wrong check digit, dashed", text: `id ${grouped(WRONG_ID_NOT_LUHN, [6, 8], "-")}` },
  { label: "ID shape with a 13th month, dashed", text: "id 440304-19901307-1235" },
  { label: "non-Luhn card with underscores", text: "ref 4111_1111_1111_1112" },
  { label: "non-Luhn card with slashes", text: "ref 4111/1111/1111/1112" },
  { label: "non-Luhn card with en dashes", text: "ref 4111–1111–1111–1112" },
  { label: "non-Luhn card, every digit spaced", text: `ref ${"4111111111111112".split("").join(" ")}` },
  { label: "ten digits spaced like a mobile", text: "call 138 1234 567" },
  { label: "a mobile shape with a 12th digit", text: "ref 138_1234_5678_9" },
  { label: "ISO date", text: "due 2024-01-05" },
  { label: "date and time with slashes", text: "at 2024/01/05 13:45:00" },
  { label: "day-first date", text: "on 13/05/2024" },
  { label: "year range with an en dash", text: "fiscal 2024–2025" },
  { label: "time range with an en dash", text: "open 9:00–17:00, lunch 12:30–13:30" },
  { label: "semantic version", text: "upgrade to v1.22.10 and node 24.11.1" },
  { label: "four-part build number", text: "Windows 10.0.19045.3803" },
  { label: "ISBN", text: "ISBN 978-3-16-148410-0" },
  { label: "dated log path", text: "/var/log/2024/01/05/app-13.log" },
  { label: "Chinese sentences with 。", text: "会议改到周三。下午3点。13号楼。" },
  { label: "an @ handle with 。 after it", text: "ping @ops。thanks" },
  { label: "uuid with digit groups", text: "run 57444139-7298-4525-a03f-560c503e3608" },
  {
    label: "wrapped base64 of plain words",
    text: `note\n${b64("the quarterly report is ready for review by the whole team")
      .match(/.{1,20}/g)!
      .join("\n")}`,
  },
];

/** Look-alikes with a bad checksum (or no secret at all) in hostile spellings: kept exactly. */
export const KEPT_CASES: NegativeCase[] = [
  { label: "ID with a wrong check digit", text: `id ${WRONG_ID_NOT_LUHN}` },
  { label: "full-width ID with a wrong check digit", text: `id ${fullWidth(WRONG_ID_NOT_LUHN)}` },
  { label: "non-Luhn 16 digits", text: "ref 4111111111111112" },
  { label: "non-Luhn 16 digits grouped", text: "ref 4111 1111 1111 1112" },
  { label: "non-Luhn 16 digits full-width", text: `ref ${fullWidth("4111111111111112")}` },
  { label: "non-Luhn 16 digits dotted", text: "ref 4111.1111.1111.1112" },
  { label: "sk- word", text: "pip install sk-learn" },
  { label: "full-width Chinese punctuation", text: "今天下午３点开会，预计３０分钟。" },
  { label: "URL with an encoded space", text: "https://docs.example.com/a%20b?page=2" },
  { label: "base64 of plain words", text: `note ${b64("the quarterly report is ready")}` },
  { label: "uuid", text: "run 123e4567-e89b-12d3-a456-426614174000" },
  { label: "five-part dotted version", text: "build 1.2.3.4.5" },
];

/** Every sensitive string of the variant corpus, for "nothing raw anywhere" checks. */
export const VARIANT_RAWS: string[] = VARIANT_CASES.map((c) => c.raw ?? c.text);

export type { Placeholder };
