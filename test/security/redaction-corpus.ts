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
