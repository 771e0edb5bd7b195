/**
 * Positive and negative examples for `redactText`. Valid ID and card numbers are computed here with
 * checksum code written independently of `src/policy/redact.ts`, so the table checks the source
 * rather than repeating it.
 */

export type Placeholder =
  | "[email]"
  | "[phone]"
  | "[cn_id]"
  | "[card]"
  | "[ip]"
  | "[slack_token]"
  | "[secret]";

export interface PositiveCase {
  label: string;
  text: string;
  /** The sensitive substring that must be gone (the whole text when omitted). */
  raw?: string;
  placeholder: Placeholder;
}

export interface NegativeCase {
  label: string;
  text: string;
}

/** ISO 7064 MOD 11-2 check character for the first 17 digits of a resident ID. */
export function cnIdCheckChar(body: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = weights.reduce((acc, weight, i) => acc + weight * Number(body.charAt(i)), 0);
  return "10X98765432".charAt(sum % 11);
}

export function withCnIdCheck(body: string): string {
  return body + cnIdCheckChar(body);
}

/** The same ID with any other check character. */
export function withWrongCnIdCheck(body: string, wrong = 0): string {
  const others = "0123456789X".split("").filter((c) => c !== cnIdCheckChar(body));
  return body + others[wrong % others.length];
}

export function luhnValid(number: string): boolean {
  const digits = number.replace(/\D/g, "");
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits.charAt(digits.length - 1 - i));
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** Appends the Luhn check digit. */
export function withLuhn(body: string): string {
  for (let d = 0; d <= 9; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`;
  throw new Error("unreachable");
}

function group(digits: string, sizes: number[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const size of sizes) {
    parts.push(digits.slice(at, at + size));
    at += size;
  }
  return parts.join(" ");
}

/** An ID (Shanghai region) whose 18 digits also pass Luhn: it must be reported as an ID, not a card. */
export const ID_THAT_PASSES_LUHN = (() => {
  for (let seq = 100; seq < 1000; seq++) {
    const id = withCnIdCheck(`31011519880214${seq}`);
    if (/^\d{18}$/.test(id) && luhnValid(id)) return id;
  }
  throw new Error("no candidate");
})();

/** An 18-digit ID look-alike (wrong check digit) that is not Luhn-valid either: nothing may match. */
export const WRONG_ID_NOT_LUHN = (() => {
  for (let wrong = 0; wrong < 10; wrong++) {
    const id = withWrongCnIdCheck("44030419900307123", wrong);
    if (/^\d{18}$/.test(id) && !luhnValid(id)) return id;
  }
  throw new Error("no candidate");
})();

/** An 18-digit ID look-alike (wrong check digit) that happens to pass Luhn: a card, never an ID. */
export const WRONG_ID_BUT_LUHN = (() => {
  for (let seq = 100; seq < 1000; seq++) {
    for (let wrong = 0; wrong < 10; wrong++) {
      const id = withWrongCnIdCheck(`44030419900307${seq}`, wrong);
      if (/^\d{18}$/.test(id) && luhnValid(id)) return id;
    }
  }
  throw new Error("no candidate");
})();

const UNIONPAY_19 = withLuhn("622202123456789012");
const CARD_WITH_MOBILE_INSIDE = withLuhn("621380013800012");

export const POSITIVE_CASES: PositiveCase[] = [
  // Emails
  {
    label: "plain email",
    text: "contact alice@example.com today",
    raw: "alice@example.com",
    placeholder: "[email]",
  },
  {
    label: "email with plus and subdomain",
    text: "alice.smith+hermes@mail.example.co.uk",
    placeholder: "[email]",
  },
  {
    label: "email at sentence end",
    text: "Mail ops-team@corp.example.io.",
    raw: "ops-team@corp.example.io",
    placeholder: "[email]",
  },
  {
    label: "QQ email (digits local part)",
    text: "发给 13800138000@qq.com",
    raw: "13800138000",
    placeholder: "[email]",
  },
  {
    label: "email in angle brackets",
    text: "From: Bob <bob_99@example.org>",
    raw: "bob_99@example.org",
    placeholder: "[email]",
  },
  // Phones
  { label: "UK international", text: "call +44 20 7946 0958 now", raw: "7946 0958", placeholder: "[phone]" },
  { label: "US international with dashes", text: "+1-415-555-0132", placeholder: "[phone]" },
  {
    label: "US with area code in parens",
    text: "office (415) 555-0132",
    raw: "555-0132",
    placeholder: "[phone]",
  },
  {
    label: "US international with parens",
    text: "+1 (415) 555-0132",
    raw: "555-0132",
    placeholder: "[phone]",
  },
  { label: "US dashed local", text: "fax 415-555-0132.", raw: "415-555-0132", placeholder: "[phone]" },
  { label: "UK with trunk zero", text: "+44 (0)20 7946 0958", raw: "7946 0958", placeholder: "[phone]" },
  { label: "CN mobile grouped +86", text: "+86 138 0013 8000", raw: "0013 8000", placeholder: "[phone]" },
  { label: "CN mobile bare", text: "手机13800138000", raw: "13800138000", placeholder: "[phone]" },
  { label: "CN mobile E.164", text: "+8613800138000", raw: "13800138000", placeholder: "[phone]" },
  {
    label: "CN mobile in Chinese sentence",
    text: "电话：13912345678。",
    raw: "13912345678",
    placeholder: "[phone]",
  },
  { label: "CN mobile dashed", text: "139-1234-5678", raw: "1234-5678", placeholder: "[phone]" },
  // Chinese resident IDs
  {
    label: "well-known valid ID (X)",
    text: "身份证号：11010519491231002X，",
    raw: "11010519491231002X",
    placeholder: "[cn_id]",
  },
  {
    label: "valid ID lowercase x",
    text: "id 11010519491231002x",
    raw: "11010519491231002x",
    placeholder: "[cn_id]",
  },
  { label: "computed valid ID (Shenzhen)", text: withCnIdCheck("44030419900307123"), placeholder: "[cn_id]" },
  {
    label: "computed valid ID born on a leap day",
    text: `ID=${withCnIdCheck("11010820000229300")}`,
    raw: "110108",
    placeholder: "[cn_id]",
  },
  {
    label: "computed valid residence permit of a Taiwan resident (region 83)",
    text: `居住证 ${withCnIdCheck("83000019900307123")}`,
    raw: "830000",
    placeholder: "[cn_id]",
  },
  {
    label: "ID that also passes Luhn",
    text: `证件 ${ID_THAT_PASSES_LUHN}`,
    raw: ID_THAT_PASSES_LUHN,
    placeholder: "[cn_id]",
  },
  // Cards
  { label: "Visa test card grouped", text: "4111 1111 1111 1111", placeholder: "[card]" },
  { label: "Visa test card dashed", text: "4111-1111-1111-1111", placeholder: "[card]" },
  {
    label: "Visa test card contiguous",
    text: "card=4111111111111111;",
    raw: "4111111111111111",
    placeholder: "[card]",
  },
  { label: "Mastercard", text: "5555 5555 5555 4444", placeholder: "[card]" },
  { label: "Amex grouped 4-6-5", text: "amex 3782 822463 10005", raw: "822463", placeholder: "[card]" },
  { label: "Discover contiguous", text: "6011111111111117", placeholder: "[card]" },
  { label: "UnionPay 19 digits grouped", text: group(UNIONPAY_19, [4, 4, 4, 4, 3]), placeholder: "[card]" },
  {
    label: "card followed by expiry",
    text: "4111 1111 1111 1111 12/26",
    raw: "4111 1111 1111 1111",
    placeholder: "[card]",
  },
  { label: "card containing a mobile-like run", text: CARD_WITH_MOBILE_INSIDE, placeholder: "[card]" },
  // IPs
  { label: "IPv4", text: "host 10.0.0.1 is down", raw: "10.0.0.1", placeholder: "[ip]" },
  { label: "IPv4 with port", text: "db at 192.168.1.20:5432", raw: "192.168.1.20", placeholder: "[ip]" },
  { label: "IPv6 full", text: "2001:0db8:85a3:0000:0000:8a2e:0370:7334", placeholder: "[ip]" },
  {
    label: "IPv6 compressed",
    text: "peer 2001:db8::8a2e:370:7334 left",
    raw: "2001:db8::8a2e:370:7334",
    placeholder: "[ip]",
  },
  { label: "IPv6 loopback", text: "listening on ::1", raw: "::1", placeholder: "[ip]" },
  {
    label: "IPv6 in brackets with port",
    text: "[fe80::1ff:fe23:4567:890a]:443",
    raw: "fe80::1ff:fe23:4567:890a",
    placeholder: "[ip]",
  },
  { label: "IPv4-mapped IPv6", text: "::ffff:192.168.1.1", raw: "192.168.1.1", placeholder: "[ip]" },
  // Slack tokens
  {
    label: "bot token",
    text: "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    placeholder: "[slack_token]",
  },
  {
    label: "user token in sentence",
    text: "use xoxp-1111-2222-3333-abcdef0123 please",
    raw: "xoxp-1111-2222-3333-abcdef0123",
    placeholder: "[slack_token]",
  },
  {
    label: "app token",
    text: "SLACK_APP_TOKEN=xapp-1-A0123456789-1234567890123-abcdef0123456789",
    raw: "xapp-1-A0123456789",
    placeholder: "[slack_token]",
  },
  {
    label: "webhook URL",
    text: "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX",
    placeholder: "[slack_token]",
  },
  // API keys and bearer tokens
  {
    label: "OpenAI key",
    text: "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL",
    placeholder: "[secret]",
  },
  {
    label: "OpenAI project key",
    text: "key sk-proj-Ab3_dE-fGh1jKlMnOpQrStUvWxYz0123456789",
    raw: "sk-proj-Ab3_dE",
    placeholder: "[secret]",
  },
  { label: "GitHub classic PAT", text: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", placeholder: "[secret]" },
  { label: "GitHub OAuth token", text: "gho_16C7e42F292c6912E7710c838347Ae178B4a", placeholder: "[secret]" },
  { label: "GitHub app token", text: "ghs_16C7e42F292c6912E7710c838347Ae178B4a", placeholder: "[secret]" },
  {
    label: "GitHub fine-grained PAT",
    text: "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    placeholder: "[secret]",
  },
  {
    label: "AWS access key id",
    text: "aws AKIAIOSFODNN7EXAMPLE",
    raw: "AKIAIOSFODNN7EXAMPLE",
    placeholder: "[secret]",
  },
  {
    label: "Bearer JWT",
    text: "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig_abc123",
    raw: "eyJhbGciOiJIUzI1NiJ9",
    placeholder: "[secret]",
  },
  {
    label: "lowercase bearer",
    text: "authorization: bearer abc123def456",
    raw: "abc123def456",
    placeholder: "[secret]",
  },
  {
    label: "password in database URL",
    text: "postgres://hermes:s3cr3t@db.internal:5432/hermes",
    raw: "s3cr3t",
    placeholder: "[secret]",
  },
  {
    label: "password assignment",
    text: "login with password=hunter2",
    raw: "hunter2",
    placeholder: "[secret]",
  },
  { label: "api_key in JSON text", text: '{"api_key": "abc123"}', raw: "abc123", placeholder: "[secret]" },
];

export const NEGATIVE_CASES: NegativeCase[] = [
  { label: "Slack ts", text: "thread 1764420000.123456" },
  { label: "Slack user and channel ids", text: "<@U0ADMIN> in <#C0OPS|ops>" },
  { label: "ticket number", text: "see ticket #1234" },
  { label: "ISO date", text: "due 2026-11-29" },
  { label: "ISO timestamp", text: "at 2026-11-29T10:00:00Z" },
  { label: "clock time", text: "at 12:30:45 sharp" },
  { label: "ordinary numbers", text: "retry in 10 minutes, 3 attempts, 1,234.56 USD" },
  { label: "version string", text: "upgraded to 1.2.3" },
  { label: "v-prefixed four-part version", text: "build v1.2.3.4" },
  { label: "invalid IPv4 octets", text: "999.1.1.1" },
  { label: "five-part dotted number", text: "1.2.3.4.5" },
  { label: "C++ scope operator", text: "std::vector<int>" },
  { label: "hex words with double colon", text: "dead::beef" },
  { label: "MAC address", text: "00:1A:2B:3C:4D:5E" },
  { label: "Luhn-invalid card grouped", text: "4111 1111 1111 1112" },
  { label: "Luhn-invalid card contiguous", text: "4111111111111112" },
  { label: "epoch milliseconds", text: "ts=1764420000123" },
  { label: "ID with wrong checksum", text: WRONG_ID_NOT_LUHN },
  { label: "ID with impossible date (Feb 30)", text: withCnIdCheck("11010519490230002") },
  { label: "ID with Feb 29 in a non-leap year", text: withCnIdCheck("11010820010229300") },
  { label: "ID with birth date in the future", text: withCnIdCheck("11010520990101002") },
  { label: "ID with unknown region", text: withCnIdCheck("99010519491231002") },
  { label: "ten-digit number", text: "order 1234567890" },
  { label: "short +number", text: "+1234 -56 lines" },
  { label: "semver build metadata", text: "hermes 1.2.3+20261129" },
  { label: "sk- word", text: "pip install sk-learn" },
  { label: "bearer in prose", text: "send a Bearer token in the header" },
  { label: "token counts", text: "max_tokens=1024 prompt_tokens: 52" },
  { label: "git sha", text: "commit 3f2a9c1b0e4d5f6a7b8c9d0e1f2a3b4c5d6e7f80" },
  { label: "uuid", text: "run 123e4567-e89b-12d3-a456-426614174000" },
  { label: "pi", text: "3.14159265358979" },
  { label: "email without TLD", text: "root@localhost" },
  { label: "Chinese prose with small numbers", text: "今天下午3点开会，预计30分钟。" },
  { label: "plain URL", text: "https://example.com/docs?page=2#intro" },
];
