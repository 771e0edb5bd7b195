import { randomBytes, randomUUID } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  containsSensitive,
  createRedactor,
  redact,
  redactForLog,
  redactText,
} from "../../src/policy/redact.ts";
import { createSecretValues } from "../../src/policy/secret-values.ts";
import {
  cnIdCheckChar,
  ID_THAT_PASSES_LUHN,
  luhnValid,
  NEGATIVE_CASES,
  POSITIVE_CASES,
  WRONG_ID_BUT_LUHN,
  WRONG_ID_NOT_LUHN,
  withCnIdCheck,
  withLuhn,
} from "./redaction-cases.ts";

describe("fixture checksums (computed independently of the source)", () => {
  it("reproduces the well-known valid ID 11010519491231002X", () => {
    expect(cnIdCheckChar("11010519491231002")).toBe("X");
    expect(withCnIdCheck("11010519491231002")).toBe("11010519491231002X");
  });

  it("agrees on the Luhn examples", () => {
    expect(luhnValid("4111 1111 1111 1111")).toBe(true);
    expect(luhnValid("4111 1111 1111 1112")).toBe(false);
    expect(luhnValid(ID_THAT_PASSES_LUHN)).toBe(true);
    expect(luhnValid(WRONG_ID_NOT_LUHN)).toBe(false);
    expect(luhnValid(WRONG_ID_BUT_LUHN)).toBe(true);
  });

  it("has at least 40 rows", () => {
    expect(POSITIVE_CASES.length + NEGATIVE_CASES.length).toBeGreaterThanOrEqual(40);
  });
});

describe("redactText", () => {
  it.each(POSITIVE_CASES)("redacts $label", ({ text, raw, placeholder }) => {
    const out = redactText(text);
    expect(out).not.toContain(raw ?? text);
    expect(out).toContain(placeholder);
    expect(containsSensitive(text)).toBe(true);
  });

  it.each(NEGATIVE_CASES)("keeps $label", ({ text }) => {
    expect(redactText(text)).toBe(text);
    expect(containsSensitive(text)).toBe(false);
  });

  it("keeps the surrounding text exactly", () => {
    expect(redactText("ping alice@example.com at 10.0.0.1:5432, ts 1764420000.123456")).toBe(
      "ping [email] at [ip]:5432, ts 1764420000.123456",
    );
    expect(redactText("Authorization: Bearer abc123def456")).toBe("Authorization: Bearer [secret]");
  });

  it("redacts every occurrence", () => {
    expect(redactText("a@example.com, b@example.com; 13800138000 / 13900139000")).toBe(
      "[email], [email]; [phone] / [phone]",
    );
  });
});

describe("redactText ordering", () => {
  it("reports an ID as an ID even when its digits pass Luhn", () => {
    expect(redactText(ID_THAT_PASSES_LUHN)).toBe("[cn_id]");
  });

  it("never reports an 18-digit number with a wrong checksum as an ID", () => {
    expect(redactText(WRONG_ID_NOT_LUHN)).toBe(WRONG_ID_NOT_LUHN);
    // A Luhn-valid look-alike may be a card; it is still not an ID.
    expect(redactText(WRONG_ID_BUT_LUHN)).toBe("[card]");
  });

  it("reads a card as a card, not as phone numbers", () => {
    for (const card of ["4111 1111 1111 1111", "4111-1111-1111-1111", "5555555555554444"]) {
      expect(redactText(card)).toBe("[card]");
    }
  });

  it("reads a +country number as a phone even when it passes Luhn", () => {
    const phone = `+${withLuhn("442079460958")}`;
    expect(luhnValid(phone)).toBe(true);
    expect(redactText(phone)).toBe("[phone]");
  });

  it("finds a value glued to one that another rule replaced", () => {
    expect(redactText("(415) 555-0132+8613800138000")).toBe("[phone][phone]");
  });

  it("reads a QQ address as an email, not a phone", () => {
    expect(redactText("13800138000@qq.com")).toBe("[email]");
  });

  it("keeps the more specific placeholder for a token assigned to a key", () => {
    expect(redactText("SLACK_BOT_TOKEN=xoxb-1-2-abc")).toBe("SLACK_BOT_TOKEN=[slack_token]");
    expect(redactText("api_key=sk-abcdefghijklmnopqrstuvwxyz0123")).toBe("api_key=[secret]");
  });
});

describe("redact (deep)", () => {
  it("scans strings inside nested objects and arrays and keeps keys", () => {
    const input = {
      user: { email: "alice@example.com", phones: ["+86 138 0013 8000", "(415) 555-0132"] },
      events: [{ text: "card 4111 1111 1111 1111" }, { ts: "1764420000.123456", channel: "C0OPS" }],
      count: 3,
      ok: true,
      missing: null,
    };
    expect(redact(input)).toEqual({
      user: { email: "[email]", phones: ["[phone]", "[phone]"] },
      events: [{ text: "card [card]" }, { ts: "1764420000.123456", channel: "C0OPS" }],
      count: 3,
      ok: true,
      missing: null,
    });
  });

  it("replaces values under secret-named keys whatever their content", () => {
    const input = {
      password: "hunter2",
      token: "plain words",
      client_secret: { nested: "object" },
      apiKey: 12345,
      api_key: ["a", "b"],
      headers: { Authorization: "Basic dXNlcjpwYXNz", "x-api-key": "k", cookie: "sid=1" },
      accessToken: "t",
      unsetToken: null,
      max_tokens: 1024,
      usage: { prompt_tokens: 10 },
    };
    expect(redact(input)).toEqual({
      password: "[secret]",
      token: "[secret]",
      client_secret: "[secret]",
      apiKey: "[secret]",
      api_key: "[secret]",
      headers: { Authorization: "[secret]", "x-api-key": "[secret]", cookie: "[secret]" },
      accessToken: "[secret]",
      unsetToken: null,
      max_tokens: 1024,
      usage: { prompt_tokens: 10 },
    });
  });

  it("never mutates its input", () => {
    const input = { a: ["alice@example.com", { token: "x", n: 13800138000 }], b: "10.0.0.1" };
    const before = structuredClone(input);
    const frozen = deepFreeze(input);
    const out = redact(frozen);
    expect(input).toEqual(before);
    expect(out).not.toBe(input);
    expect((out as typeof input).a).not.toBe(input.a);
  });

  it("handles cycles and shared references", () => {
    const shared = { email: "bob@example.com" };
    const node: Record<string, unknown> = { name: "root", shared, again: shared };
    node.self = node;
    node.list = [node, shared];
    const out = redact(node) as Record<string, unknown>;
    expect(out.self).toBe(out);
    expect((out.list as unknown[])[0]).toBe(out);
    expect(out.shared).toBe(out.again);
    expect(out.shared).toEqual({ email: "[email]" });
    expect(shared.email).toBe("bob@example.com");
  });

  it("redacts numbers that are phones or cards and keeps other numbers", () => {
    expect(redact({ phone: 13800138000, card: 4111111111111111, ts: 1764420000.123456, n: 10 })).toEqual({
      phone: "[phone]",
      card: "[card]",
      ts: 1764420000.123456,
      n: 10,
    });
  });

  it("returns primitives and plain strings", () => {
    expect(redact("mail alice@example.com")).toBe("mail [email]");
    expect(redact(undefined)).toBeUndefined();
    expect(redact(null)).toBeNull();
    expect(redact(false)).toBe(false);
  });

  it("keeps an Error an Error, with message and stack redacted", () => {
    const error = Object.assign(new Error("cannot reach alice@example.com"), { code: "E1", token: "abc" });
    const out = redact(error) as Error & { code: string; token: string };
    expect(out).toBeInstanceOf(Error);
    expect(out).not.toBe(error);
    expect(out.message).toBe("cannot reach [email]");
    expect(out.stack).not.toContain("alice@example.com");
    expect(out.code).toBe("E1");
    expect(out.token).toBe("[secret]");
    expect(Object.keys(out)).toEqual(["code", "token"]);
    expect(error.message).toBe("cannot reach alice@example.com");
  });

  it("handles Map, Set, Date and objects with toJSON", () => {
    const date = new Date("2026-11-29T00:00:00Z");
    const out = redact({
      map: new Map<string, unknown>([
        ["to", "alice@example.com"],
        ["password", "x"],
      ]),
      set: new Set(["10.0.0.1"]),
      date,
      url: new URL("postgres://u:p4ss@db.example.com/x"),
    }) as { map: Map<string, unknown>; set: Set<string>; date: Date; url: string };
    expect([...out.map]).toEqual([
      ["to", "[email]"],
      ["password", "[secret]"],
    ]);
    expect([...out.set]).toEqual(["[ip]"]);
    expect(out.date).toBe(date);
    expect(out.url).toBe("postgres://u:[secret]@db.example.com/x");
  });
});

describe("redactText on base64 runs among ids and hashes", () => {
  const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
  // Base64 runs that decode to noise and hold no digit and none of the letters the redactor's first
  // look searches for (`token`, `xox`, `AKIA`, …): only the base64 rule can apply to them.
  const QUIET = "BCDFGHJLMNQRVWZ";
  const noise = (chars: number) => Array.from(randomBytes(chars), (b) => QUIET[b % QUIET.length]).join("");
  const secret = b64("password=hunter2-is-secret");

  it("finds an encoded secret after runs that decode to noise (uuids, hashes, random base64)", () => {
    const ids = [
      randomUUID(),
      randomBytes(32).toString("hex"),
      noise(64),
      `call_${randomBytes(12).toString("hex")}`,
    ];
    expect(redactText(`${ids.join(" ")} then ${secret}`)).toBe(`${ids.join(" ")} then [secret]`);
    expect(redactText(ids.join(" "))).toBe(ids.join(" "));
  });

  it("keeps to the decode budget: a run too long for what is left is skipped, a later one that fits is read", () => {
    // Longer than the whole budget (64 Ki characters): not decoded, and the budget is left whole.
    const huge = noise(80 * 1024);
    expect(redactText(`${huge} ${secret}`)).toBe(`${huge} [secret]`);
    // 60 Ki decoded, then a run longer than the 4 Ki left (skipped), then a short one that fits.
    const first = noise(60 * 1024);
    const second = noise(8 * 1024);
    expect(redactText(`${first} ${second} ${secret}`)).toBe(`${first} ${second} [secret]`);
    // No budget left for it: the secret itself is not decoded.
    const all = noise(64 * 1024 - 8);
    expect(redactText(`${all} ${secret}`)).toBe(`${all} ${secret}`);
  });
});

describe("redactText on UUIDs (run ids: not scanned)", () => {
  it("a random UUID comes back as the full scan leaves it: unchanged", () => {
    for (let i = 0; i < 20_000; i++) {
      const id = randomUUID();
      expect(redactText(id)).toBe(id);
      // With a character after it, it is no UUID: the full scan (screening view, base64 decode) runs.
      expect(redactText(`${id} `)).toBe(`${id} `);
    }
  });

  it("a UUID that holds a configured secret value is still redacted, alone and inside text", () => {
    const key = randomUUID();
    const r = createRedactor({ secrets: createSecretValues([key]) });
    expect(r.redactText(key)).toBe("[secret]");
    expect(r.redactSecrets(key)).toBe("[secret]");
    expect(r.redactText(`key ${key}`)).toBe("key [secret]");
    const other = randomUUID();
    expect(r.redactText(other)).toBe(other);
    // Not the canonical form: scanned as any text (and clean).
    expect(r.redactText(other.toUpperCase())).toBe(other.toUpperCase());
  });
});

describe("redactForLog (for values that are only serialized)", () => {
  it("hands back the value itself when nothing in it is sensitive: no copy", () => {
    const line = {
      event: "model.response",
      step: 2,
      toolCalls: ["get_weather"],
      usage: { promptTokens: 100, completionTokens: 20 },
      unsetToken: null,
      max_tokens: 1024,
      latencyMs: Number.NaN,
      at: new Date("2026-11-29T00:00:00Z"),
      streamed: false,
    };
    expect(redactForLog(line)).toBe(line);
    expect(redactForLog("model.response")).toBe("model.response");
  });

  // Every kind of value `redact` changes or copies specially: redactForLog answers as redact does.
  const changed: Array<[string, unknown]> = [
    ["a string in a nested array", { a: [{ b: ["mail alice@example.com"] }] }],
    ["a value under a secret-named key", { headers: { Authorization: "Basic dXNlcjpwYXNz" } }],
    ["a number that is a phone", { n: 13800138000 }],
    ["a number that is a card", [4111111111111111]],
    ["a Map", { m: new Map([["to", "alice@example.com"]]) }],
    ["a Set", { s: new Set(["10.0.0.1"]) }],
    ["an Error", { err: Object.assign(new Error("reach bob@example.com"), { token: "t" }) }],
    ["an object with toJSON", { url: new URL("postgres://u:p4ss@db.example.com/x") }],
    ["a bigint", { big: 13800138000n }],
    ["a plain string", "call +86 138 0013 8000"],
  ];
  it.each(changed)("redacts %s exactly as redact does", (_label, value) => {
    expect(redactForLog(value)).toEqual(redact(value));
    expect(redactForLog(value)).not.toBe(value);
  });

  it("copies a cyclic or very deep value as redact does (cycles kept)", () => {
    const node: Record<string, unknown> = { email: "bob@example.com" };
    node.self = node;
    const out = redactForLog(node) as Record<string, unknown>;
    expect(out.self).toBe(out);
    expect(out.email).toBe("[email]");
    let deep: Record<string, unknown> = { leaf: "clean" };
    for (let i = 0; i < 40; i++) deep = { next: deep };
    expect(redactForLog(deep)).toEqual(deep);
  });

  it("serializes like redact on random values built from sensitive fragments", () => {
    const key = fc.oneof(
      fc.constantFrom("password", "token", "max_tokens", "to", "note", "apiKey"),
      fc.string(),
    );
    const leaf = fc.oneof(
      fragmentText,
      fc.constantFrom(13800138000, 4111111111111111, 42, 1764420000.123456, Number.NaN),
      fc.boolean(),
      fc.constant(null),
    );
    const { tree } = fc.letrec((tie) => ({
      tree: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("tree")), fc.dictionary(key, tie("tree"))),
    }));
    fc.assert(
      fc.property(tree, (value) => {
        expect(JSON.stringify(redactForLog(value))).toBe(JSON.stringify(redact(value)));
      }),
      { numRuns: 2000 },
    );
  });
});

// Pieces of sensitive values and their look-alikes, so random concatenations hit the patterns' edges.
const FRAGMENTS = [
  ...POSITIVE_CASES.map((c) => c.text),
  ...NEGATIVE_CASES.map((c) => c.text),
  "[email]",
  "[phone]",
  "[secret]",
  "password=",
  "Bearer ",
  "://u:",
  "@",
  "+",
  "-",
  ".",
  ":",
  "::",
  " ",
  "1",
  "86",
  "x",
  "X",
  "(",
  ")",
];
const fragmentText = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 })), { maxLength: 12 })
  .map((parts) => parts.join(""));

describe("redactText properties", () => {
  it("is idempotent and never throws on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" })), (text) => {
        const once = redactText(text);
        expect(redactText(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  it("is idempotent on mixes of sensitive values and look-alikes", () => {
    fc.assert(
      fc.property(fragmentText, (text) => {
        const once = redactText(text);
        expect(redactText(once)).toBe(once);
        expect(containsSensitive(once)).toBe(false);
      }),
      // A phone as a URL's password once came out as `://u:secret@` and then `[secret]` (CI seed -514681727).
      { numRuns: 2000, examples: [["://u:+86 138 0013 8000@"], ["://u:+86 138 0013 8000root@localhost"]] },
    );
  });
});

describe("redactText performance", () => {
  // Generous bound: it only has to catch catastrophic backtracking (seconds), not measure speed.
  const inputs = {
    prose: "Deploy 1764420000.123456 by U0ADMIN fixed #1234 on 2026-11-29 after 10 minutes. ",
    sensitive: "mail a@example.com, +44 20 7946 0958, 4111 1111 1111 1111, 10.0.0.1, 11010519491231002X, ",
    digits: "1",
    dotted: "a.",
    dottedDigits: "1.",
    colons: "ab:",
    plus: "+1 2",
    at: "a@b.",
  };
  it.each(Object.entries(inputs))("scans 100 KB of %s quickly", (_name, unit) => {
    const text = unit.repeat(Math.ceil(100_000 / unit.length)).slice(0, 100_000);
    const start = performance.now();
    redactText(text);
    expect(performance.now() - start).toBeLessThan(500);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
