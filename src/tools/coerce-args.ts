import { MAX_JSON_DEPTH, textNestingDepth } from "../core/json-limits.ts";

/**
 * Makes model-written arguments fit the tool's JSON Schema without guessing: drops `null` where a
 * field is optional, drops unknown keys, and converts only safe scalars ("5"→5, "true"→true, 42→"42",
 * enum values case-insensitively). Everything it changes is reported; zod validates afterwards.
 */

export interface CoerceNotes {
  dropped: string[];
  nulls: string[];
  coerced: string[];
}

type Schema = Record<string, unknown>;

const NUMBER = /^\s*-?\d+(\.\d+)?([eE][+-]?\d+)?\s*$/;

export function coerceArgs(value: unknown, schema: Schema): { value: unknown; notes: CoerceNotes } {
  const notes: CoerceNotes = { dropped: [], nulls: [], coerced: [] };
  return { value: walk(value, schema, "", notes), notes };
}

function types(schema: Schema): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  if (schema.properties) return ["object"];
  if (Array.isArray(schema.enum))
    return [...new Set(schema.enum.map((v) => (v === null ? "null" : typeof v)))];
  return [];
}

function allowsNull(schema: Schema): boolean {
  if (types(schema).includes("null")) return true;
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  return Array.isArray(branches) && branches.some(allowsNull);
}

function walk(value: unknown, schema: Schema, path: string, notes: CoerceNotes): unknown {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    // Keep a value one branch takes as is; otherwise coerce towards the first branch that can.
    const exact = branches.find((b) => matchesType(value, b));
    if (exact) return walk(value, exact, path, notes);
    for (const b of branches) {
      const before = notes.coerced.length;
      const out = walk(value, b, path, notes);
      if (notes.coerced.length > before) return out;
    }
    return value;
  }

  const t = types(schema);
  if (value !== null && typeof value === "object" && !Array.isArray(value) && t.includes("object")) {
    return walkObject(value as Record<string, unknown>, schema, path, notes);
  }
  if (Array.isArray(value) && t.includes("array") && schema.items && typeof schema.items === "object") {
    return value.map((v, i) => walk(v, schema.items as Schema, `${path}[${i}]`, notes));
  }
  if (
    typeof value === "string" &&
    t.includes("array") &&
    value.trim().startsWith("[") &&
    textNestingDepth(value) <= MAX_JSON_DEPTH
  ) {
    try {
      const arr: unknown = JSON.parse(value);
      if (Array.isArray(arr)) {
        notes.coerced.push(`${label(path)}: JSON text → array`);
        return walk(arr, schema, path, notes);
      }
    } catch {
      // not JSON: leave it to validation
    }
  }
  if (Array.isArray(schema.enum) && typeof value === "string") {
    if (schema.enum.includes(value)) return value;
    const wanted = value.trim().toLowerCase();
    const hit = schema.enum.find((e) => typeof e === "string" && e.toLowerCase() === wanted);
    if (hit !== undefined) {
      notes.coerced.push(`${label(path)}: "${value}" → "${hit}"`);
      return hit;
    }
    return value;
  }
  if (typeof value === "string" && (t.includes("integer") || t.includes("number")) && !t.includes("string")) {
    if (NUMBER.test(value)) {
      const n = Number(value);
      if (t.includes("number") || Number.isInteger(n)) {
        notes.coerced.push(`${label(path)}: "${value}" → ${n}`);
        return n;
      }
    }
    return value;
  }
  if (typeof value === "string" && t.includes("boolean") && !t.includes("string")) {
    const v = value.trim().toLowerCase();
    if (v === "true" || v === "false") {
      notes.coerced.push(`${label(path)}: "${value}" → ${v}`);
      return v === "true";
    }
    return value;
  }
  if (
    typeof value === "number" &&
    t.length > 0 &&
    t.includes("string") &&
    !t.includes("number") &&
    !t.includes("integer")
  ) {
    notes.coerced.push(`${label(path)}: ${value} → "${value}"`);
    return String(value);
  }
  return value;
}

function walkObject(obj: Record<string, unknown>, schema: Schema, path: string, notes: CoerceNotes) {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const closed = schema.additionalProperties === false || schema.additionalProperties === undefined;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(obj)) {
    const sub = props[key];
    const p = path ? `${path}.${key}` : key;
    if (!sub) {
      if (closed) {
        notes.dropped.push(p);
        continue;
      }
      out[key] = v;
      continue;
    }
    if (v === null && !allowsNull(sub) && !required.has(key)) {
      notes.nulls.push(p);
      continue;
    }
    out[key] = walk(v, sub, p, notes);
  }
  return out;
}

function matchesType(value: unknown, schema: Schema): boolean {
  const t = types(schema);
  if (value === null) return t.includes("null");
  if (Array.isArray(value)) return t.includes("array");
  if (typeof value === "number")
    return t.includes("number") || (t.includes("integer") && Number.isInteger(value));
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  return t.includes(typeof value);
}

const label = (path: string) => path || "(arguments)";
