import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  type JsonValue,
  sha256Hex,
  storableJsonText,
  storableString,
  toStorableJson,
} from "../../src/core/canonical-json.ts";

/** The same value with every object's keys in reverse insertion order. */
function reverseKeys(value: JsonValue): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(reverseKeys);
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reverseKeys(v)]),
  );
}

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe("canonicalJson", () => {
  it("sorts keys at every depth and writes no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: "x y" }], "": null })).toBe(
      '{"":null,"a":[{"c":"x y","d":2}],"b":1}',
    );
  });

  it("follows JSON's rules for non-JSON values", () => {
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson({ a: undefined, b: Number.NaN, c: new Date(0) })).toBe(
      '{"b":null,"c":"1970-01-01T00:00:00.000Z"}',
    );
    expect(canonicalJson([undefined, 1])).toBe("[null,1]");
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
  });

  it("does not depend on key order, and parses back to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(reverseKeys(value as JsonValue))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });

  it("sha256Hex gives the standard digest", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("toStorableJson", () => {
  it("replaces what Postgres refuses (NUL, unpaired surrogates) in keys and values, keeps the rest", () => {
    expect(toStorableJson({ "k\u0000": ["a\u0000b", "\uD800x", "ok 😀 你好"] })).toEqual({
      "k\uFFFD": ["a\uFFFDb", "\uFFFDx", "ok 😀 你好"],
    });
    expect(storableString("\uDC00")).toBe("\uFFFD");
  });

  it("cleans every key and string at any depth, and leaves storable data exactly as JSON gives it", () => {
    const strings = (v: JsonValue): string[] =>
      v === null || typeof v !== "object"
        ? typeof v === "string"
          ? [v]
          : []
        : Array.isArray(v)
          ? v.flatMap(strings)
          : Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)]);
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        const stored = toStorableJson(value);
        for (const s of strings(stored)) expect(UNSTORABLE.test(s)).toBe(false);
        const plain = JSON.parse(JSON.stringify(value)) as JsonValue;
        if (!strings(plain).some((s) => UNSTORABLE.test(s))) expect(stored).toEqual(plain);
      }),
    );
    // A backslash before "u0000" or "ud800" in the text is data, not an escape: kept as it is.
    expect(toStorableJson({ path: "C:\\u0000\\ud800" })).toEqual({ path: "C:\\u0000\\ud800" });
    expect(toStorableJson({ deep: [{ "a\uDFFF": { b: "\u0000" } }] })).toEqual({
      deep: [{ "a\uFFFD": { b: "\uFFFD" } }],
    });
  });

  it("is idempotent and never leaves an unstorable character", () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        const once = toStorableJson(value);
        expect(toStorableJson(once)).toEqual(once);
        expect(UNSTORABLE.test(JSON.stringify(once))).toBe(false);
      }),
    );
  });
});

describe("storableJsonText", () => {
  it("is the JSON text of toStorableJson, for any value (undefined included)", () => {
    expect(storableJsonText(undefined)).toBe("null");
    expect(storableJsonText({ "k\u0000": "\uD800x" })).toBe('{"k\uFFFD":"\uFFFDx"}');
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: "binary" }), (value) => {
        expect(JSON.parse(storableJsonText(value))).toEqual(toStorableJson(value));
      }),
    );
  });
});
