import { hash } from "node:crypto";

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Deterministic JSON: object keys sorted by UTF-16 code unit, no whitespace, numbers and strings as
 * `JSON.stringify` writes them (for JSON data this is RFC 8785, JCS). Values go through JSON first,
 * so `toJSON`, dropped `undefined` members and `NaN → null` follow the usual rules; a top-level
 * `undefined` is `null`.
 */
export function canonicalJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json === undefined ? "null" : write(JSON.parse(json) as JsonValue);
}

function write(value: JsonValue): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(write).join(",")}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${write(value[k] as JsonValue)}`).join(",")}}`;
}

/** The SHA-256 of a text (its UTF-8) or of bytes, as lower-case hex. */
export function sha256Hex(data: string | Uint8Array): string {
  // One-shot: no Hash object per call (~3× faster for the short texts hashed per call and audit row).
  return hash("sha256", data, "hex");
}

// NUL and unpaired surrogates: Postgres text and jsonb reject them.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string Postgres accepts in text and jsonb: NUL and unpaired surrogates become U+FFFD. */
export function storableString(value: string): string {
  return value.replace(UNSTORABLE, "\uFFFD");
}

/**
 * `value` as plain JSON data that survives a round trip through jsonb unchanged (so a hash computed
 * before the insert can be recomputed from what is read back). `undefined` → `null`.
 */
export function toStorableJson(value: unknown): JsonValue {
  const json = JSON.stringify(value);
  if (json === undefined) return null;
  const parsed = JSON.parse(json) as JsonValue;
  // JSON.stringify writes NUL and unpaired surrogates as `\u0000` / `\ud800`-style escapes: without
  // one in the text (the usual case: run snapshots, audit args) there is nothing to clean, and the
  // second walk over every key and string is skipped. A backslash written before such letters only
  // takes the slow path.
  return ESCAPED_UNSTORABLE.test(json) ? clean(parsed) : parsed;
}

/**
 * `toStorableJson(value)` as JSON text, for a statement that takes JSON: one `JSON.stringify` when
 * nothing needs cleaning (the usual case), not a stringify, a parse and the caller's stringify again.
 */
export function storableJsonText(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) return "null";
  return ESCAPED_UNSTORABLE.test(json) ? JSON.stringify(clean(JSON.parse(json) as JsonValue)) : json;
}

const ESCAPED_UNSTORABLE = /\\u(?:0000|d[89a-f])/i;

function clean(value: JsonValue): JsonValue {
  if (typeof value === "string") return storableString(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(clean);
  // fromEntries defines own properties, so a "__proto__" key stays data instead of a prototype.
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableString(k), clean(v)]));
}
