import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/policy/redact.ts";
import { createSecretValues } from "../../src/policy/secret-values.ts";

/**
 * Redaction on long hostile strings: escape prefixes that never complete, runs of full-width digits,
 * zero-width characters, separators, base64 alphabets, token prefixes — the shapes that make a
 * backtracking pattern or an unbounded decoder explode. Every run must complete (the test's timeout
 * only bounds a hang), throw nothing, and leave no configured secret in the output. The time per
 * character is printed as a figure; speed is a benchmark's business, not an assertion here. Past
 * 256 KiB a string is scanned raw (no normalizing view), which bounds the worst case per string.
 */

const SECRET = "cfg-Secret-Value-0123456789";
const redactor = createRedactor({ secrets: createSecretValues([SECRET]) });

const UNITS = [
  "%",
  "%4",
  "%E5%BF",
  "%25",
  "&",
  "&#",
  "&#x",
  "&amp;",
  "&lt",
  "\\",
  "\\u00",
  "\\u{",
  "\\n",
  "１",
  "１ ",
  "\u200b",
  "\u202e",
  "1",
  "1 ",
  "1.",
  "1-",
  "+1 ",
  "(1)",
  "a@",
  "@b.",
  ":",
  "::",
  "QUFB",
  "QUFBQUFB+/",
  "xoxb-",
  "sk-",
  "Bearer ",
  "password=",
  "://u:",
  "a ",
  "і",
  " ",
  "\n",
  // Separators read inside numbers, `0086`, `。` in emails, wrapped base64, a secret split by gaps.
  "1_",
  "1/",
  "1\u2013",
  "1 ",
  "4 1 ",
  "0086",
  "0086 1",
  "a。",
  "@b。",
  "QUFB\n",
  "QUFBQUFBQUFBQUFBQUFB\n",
  "QUFB\r\n",
  "cfg-Secret-\n",
  "cfg-Secret-Value-012345678\n",
  "c\u200bf\u200bg",
];

/** A long string: a few units, each repeated many times, with the secret (raw or encoded) inside. */
const hostile = fc
  .record({
    parts: fc.array(fc.tuple(fc.constantFrom(...UNITS), fc.integer({ min: 1, max: 20_000 })), {
      minLength: 1,
      maxLength: 6,
    }),
    secretAt: fc.nat(),
    spelling: fc.constantFrom<(s: string) => string>(
      (s) => s,
      (s) => encodeURIComponent(s),
      (s) => Buffer.from(s).toString("base64"),
    ),
  })
  .map(({ parts, secretAt, spelling }) => {
    const body = parts.map(([unit, n]) => unit.repeat(n)).join("");
    const at = secretAt % (body.length + 1);
    return `${body.slice(0, at)} ${spelling(SECRET)} ${body.slice(at)}`;
  });

describe("redaction on long hostile strings", () => {
  it("always completes, never throws, and never lets a configured secret through", () => {
    let chars = 0;
    let ms = 0;
    fc.assert(
      fc.property(hostile, (text) => {
        const start = performance.now();
        const out = redactor.redactText(text);
        const deep = redactor.redact({ text, nested: [text.slice(0, 1000)] }) as { text: string };
        ms += performance.now() - start;
        chars += text.length * 2;
        expect(out).not.toContain(SECRET);
        expect(deep.text).not.toContain(SECRET);
        expect(redactor.redactSecrets(text)).not.toContain(SECRET);
      }),
      { numRuns: 40 },
    );
    console.log(`redaction: ${((ms * 1000) / chars).toFixed(2)} µs per character over ${chars} characters`);
  }, 120_000);

  it("scales linearly up to 200k characters of each hostile unit (figures printed, not asserted)", () => {
    for (const unit of [
      "%E5%BF",
      "&#",
      "\\u00",
      "１ ",
      "\u200b1",
      "QUFB",
      "1.",
      "+1 ",
      "1_",
      "4 1 ",
      "1\u2013",
      "0086 1",
      "a。",
      "QUFB\n",
      "QUFBQUFBQUFBQUFBQUFB\n",
      "cfg-Secret-Value-012345678\n",
    ]) {
      const times: number[] = [];
      for (const size of [50_000, 200_000]) {
        const text = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
        const start = performance.now();
        const out = redactor.redactText(`${text} ${SECRET}`);
        times.push(performance.now() - start);
        expect(out).not.toContain(SECRET);
      }
      console.log(
        `redaction ${JSON.stringify(unit)}: 50k chars ${times[0]!.toFixed(0)} ms, 200k chars ${times[1]!.toFixed(0)} ms`,
      );
    }
  }, 120_000);
});
