import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../../src/policy/redact.ts";
import { createSecretValues } from "../../../src/policy/secret-values.ts";
import { createRedactionWindow } from "../../../src/slack/stream/redaction-window.ts";
import { createStreamedText } from "../../../src/slack/stream/streamed-text.ts";
import { NEGATIVE_CASES, POSITIVE_CASES } from "../../policy/redaction-cases.ts";

/**
 * The streamed answer is redacted in a sliding window; it must come to exactly what redacting the whole
 * text at once gives, wherever the pieces are cut: what was pushed out is at every moment the start of
 * the whole text redacted, and that plus the window's rest is all of it. With the redactor the Slack
 * stream uses (credentials, configured secret values by exact value), on the redaction corpus (secrets
 * and personal data) and credentials in every spelling the redactor reads, cut at every point.
 */

const CONFIGURED = ["Configured-Secret-Value-42", "db-pass-Z9y8X7w6"];
const redactor = createRedactor({ secrets: createSecretValues(CONFIGURED) });
const redact = (t: string) => redactor.redactSecrets(t);

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const CREDENTIALS = [
  "token xoxb-2048-4096-AbCdEfGhIjKl here",
  "the app token xapp-1-A0123-456-abcdef0123 and more",
  "hook https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX done",
  "key sk-proj-abcdefghijklmnopqrstuvwxyz0123 ok",
  "short sk-ab12cd34 key",
  "stripe sk_live_0123456789abcdefABCD and",
  "gh ghp_0123456789abcdefghijABCDEFGHIJ token",
  "pat github_pat_11ABCDEFG0123456789_abcdefghij end",
  "aws AKIAIOSFODNN7EXAMPLE id",
  "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc123 sent",
  "Bearer    abcdefgh12345678 with spaces",
  "header Basic dXNlcjpwYXNzd29yZA== sent",
  "password: hunter2hunter2 and",
  'config "api_key" : "abc123def456" set',
  "password = bearer stays",
  "X-Api-Key: 0123456789abcdef header",
  "postgres://admin:s3cr3t-pass@db.internal:5432/app url",
  `configured ${CONFIGURED[0]} value`,
  `url-encoded ${encodeURIComponent(`${CONFIGURED[1]}/x`)} value`,
  `base64 ${b64(CONFIGURED[0]!)} value`,
  `hidden ${b64("password: hunter2hunter2")} run`,
  "escaped password%3A%20hunter2hunter2 and &#112;assword=hunter2hunter2 too",
  "zero\u200bwidth xo\u200bxb-2048-4096-AbCdEfGhIjKl token",
  "full-width ｘｏｘｂ－２０４８－４０９６－ＡｂＣｄＥｆＧｈ token",
  "two lines token=abc\ndef123 and\n\n  password:\n hunter2hunter2",
];

const CORPUS = [...CREDENTIALS, ...POSITIVE_CASES.map((c) => c.text), ...NEGATIVE_CASES.map((c) => c.text)];

const FILLER =
  "The VPN gateway in Berlin dropped connections at nine, and the on-call team is looking into it. ";
const filler = (n: number) => FILLER.repeat(Math.ceil(n / FILLER.length)).slice(0, n);

/** Streams `pieces` through a window; checks it against redacting the whole text at once. */
function streamAndCheck(pieces: string[]): void {
  const whole = redact(pieces.join(""));
  const w = createRedactionWindow(redact);
  let out = "";
  for (const p of pieces) {
    out += w.push(p);
    if (!whole.startsWith(out))
      throw new Error(`pushed out ${JSON.stringify(out.slice(-80))}, not a start of the whole text redacted`);
  }
  expect(out + w.rest()).toBe(whole);
}

/** The text cut at `at` (sorted positions). */
function cutAt(text: string, at: number[]): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const c of [...at, text.length]) {
    pieces.push(text.slice(from, c));
    from = c;
  }
  return pieces;
}

describe("a streamed answer redacted in a sliding window equals the whole answer redacted at once", () => {
  it("has a corpus", () => {
    expect(CORPUS.length).toBeGreaterThan(100);
    // The corpus holds credentials the Slack redaction replaces, and text it keeps.
    expect(CORPUS.filter((t) => redact(t) !== t).length).toBeGreaterThan(20);
  });

  // Each case after more than a window of text (so the window has settled before it), cut at every
  // point in and around it: in two pieces, and in three with one character apart.
  it.each(CORPUS.map((text, i) => ({ i, text })))("case $i, cut at every point", ({ text }) => {
    const before = filler(1500);
    const doc = `${before}${text} ${filler(400)}`;
    for (let c = before.length - 20; c <= before.length + text.length + 20; c++) {
      streamAndCheck(cutAt(doc, [c]));
      streamAndCheck(cutAt(doc, [c, c + 1]));
    }
  });

  it("the whole corpus in one text, one character a piece and five characters a piece", () => {
    const doc = CORPUS.map((t, i) => `${t} ${filler(40 + ((i * 37) % 300))}`).join("\n");
    expect(doc.length).toBeGreaterThan(20_000);
    streamAndCheck([...doc]);
    streamAndCheck(
      cutAt(
        doc,
        Array.from({ length: Math.floor(doc.length / 5) }, (_, i) => (i + 1) * 5),
      ),
    );
  });

  it("random texts of corpus entries and prose, cut at random points", () => {
    const part = fc.oneof(
      fc.constantFrom(...CORPUS),
      fc.integer({ min: 1, max: 1500 }).map(filler),
      fc.constantFrom(" ", "\n", "\n\n", "  ", "\t", ":", "=", "Bearer ", "password: ", "%20", "&amp;"),
    );
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 400 }),
        (parts, cuts) => {
          const doc = parts.join("");
          const at = [...new Set(cuts.map((c) => c % (doc.length + 1)))].sort((a, b) => a - b);
          streamAndCheck(cutAt(doc, at));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("the streamed text of a 100,000-character answer in 20,000 pieces is its redaction, at a bounded cost per piece", () => {
    const secret = " password: hunter2hunter2 ";
    const doc = Array.from({ length: 400 }, (_, i) => `${filler(200 + (i % 50))}${i % 7 === 0 ? secret : ""}`)
      .join("")
      .slice(0, 100_000);
    let calls = 0;
    let longest = 0;
    const text = createStreamedText((t) => {
      calls++;
      longest = Math.max(longest, t.length);
      return redact(t);
    });
    let out = "";
    for (let i = 0; i < doc.length; i += 5) out += text.add(doc.slice(i, i + 5));
    const whole = redact(doc);
    expect(whole.startsWith(out)).toBe(true);
    expect(out.length).toBeGreaterThan(doc.length - 2000);
    expect(out).not.toContain("hunter2");
    // Per piece at most a few redactions, each of a window that does not grow with the answer.
    expect(calls).toBeLessThan(2 * (doc.length / 5));
    expect(longest).toBeLessThanOrEqual(4 * 1024);
  });
});
