import { isRecord } from "./json-calls.ts";

type Schema = Record<string, unknown>;

/** Nesting examined; deeper values are taken as fitting (the registry validates them in full). */
const MAX_DEPTH = 16;

/**
 * Whether arguments fit a tool's JSON Schema, in the subset that tells a call from something else:
 * `type` (a name or a list, with `nullable`), `properties`, `required`, `additionalProperties: false`,
 * `enum`/`const`, `items`, and unions (`anyOf`/`oneOf` any branch, `allOf` every branch). Everything
 * else (formats, bounds, patterns) is left to the registry's own validation, which also runs. Used
 * by the schema-guided reader to decide whether text that names a tool really holds its arguments,
 * and whether a wrapper key (`{"arguments": {…}}`) has to be taken off. Recursion is capped.
 */
export function fitsSchema(value: unknown, schema: unknown, depth = 0): boolean {
  if (!isRecord(schema) || depth > MAX_DEPTH) return true;
  if (Array.isArray(schema.enum) && !schema.enum.some((v) => sameScalar(v, value))) return false;
  if ("const" in schema && !sameScalar(schema.const, value)) return false;
  if (!typeFits(value, schema)) return false;
  for (const [keyword, every] of [
    ["allOf", true],
    ["anyOf", false],
    ["oneOf", false],
  ] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const fit = (b: unknown) => fitsSchema(value, b, depth + 1);
    if (every ? !branches.every(fit) : !branches.some(fit)) return false;
  }
  if (isRecord(value)) return objectFits(value, schema, depth);
  if (Array.isArray(value) && isRecord(schema.items)) {
    return value.every((item) => fitsSchema(item, schema.items, depth + 1));
  }
  return true;
}

function objectFits(value: Record<string, unknown>, schema: Schema, depth: number): boolean {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  if (Array.isArray(schema.required)) {
    for (const key of schema.required) {
      if (typeof key === "string" && !Object.hasOwn(value, key)) return false;
    }
  }
  for (const [key, v] of Object.entries(value)) {
    if (Object.hasOwn(properties, key)) {
      if (!fitsSchema(v, properties[key], depth + 1)) return false;
    } else if (schema.additionalProperties === false) return false;
    else if (isRecord(schema.additionalProperties) && !fitsSchema(v, schema.additionalProperties, depth + 1))
      return false;
  }
  return true;
}

function typeFits(value: unknown, schema: Schema): boolean {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) return true;
  if (value === null && schema.nullable === true) return true;
  return types.some((t) => typeof t === "string" && isOfType(value, t));
}

function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    // Numbers and booleans written as strings fit: the registry coerces them, as for native calls.
    case "integer":
      return Number.isInteger(typeof value === "string" && NUMBER.test(value) ? Number(value) : value);
    case "number":
      return Number.isFinite(typeof value === "string" && NUMBER.test(value) ? Number(value) : value);
    case "boolean":
      return typeof value === "boolean" || value === "true" || value === "false";
    case "object":
      return isRecord(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
    default:
      return true;
  }
}

const NUMBER = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/;

function sameScalar(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b);
}
