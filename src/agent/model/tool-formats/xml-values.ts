import { MAX_JSON_DEPTH, textNestingDepth } from "../../../core/json-limits.ts";
import { parseLenientJson } from "../../../core/lenient-json.ts";

type Schema = Record<string, unknown>;
type Kind = "string" | "integer" | "number" | "boolean" | "object" | "array" | "null";

/**
 * The value of one XML parameter (`<parameter=days>\n3\n</parameter>`), typed from the tool's JSON
 * Schema as vLLM's qwen3coder / minimax_m2 / glm4_moe parsers do, since XML carries only text:
 * string → the text; integer/number → a number when the text is one; boolean → true/false; object/array
 * → the leniently parsed JSON (Python literals too); nullable → null for `null`/`None`; a union (`anyOf`,
 * `oneOf`, a type list) → the first kind the text fits, a string when a string is allowed. Text that does
 * not fit its type stays a string, for validation to report. Without a schema for the key the text is
 * JSON when it parses strictly, else the string. One leading and one trailing newline are dropped (the
 * templates put the value on its own line), and a value that is one CDATA section is its content.
 */
export function typeXmlValue(raw: string, toolSchema: Schema | undefined, key: string): unknown {
  const text = unwrapCdata(stripOneNewline(raw));
  const kinds = kindsOf(propertySchema(toolSchema, key));
  if (kinds === undefined) {
    const parsed = strictJson(text);
    return parsed ? parsed.value : text;
  }
  const trimmed = text.trim();
  if (kinds.has("null") && /^(null|none)$/i.test(trimmed)) return null;
  if (kinds.has("string")) {
    // A union of string and a container: the container when the text is one.
    if (kinds.has("object") || kinds.has("array")) {
      const parsed = strictJson(trimmed);
      if (parsed !== undefined && fits(parsed.value, kinds)) return parsed.value;
    }
    return text;
  }
  for (const kind of ["integer", "number", "boolean", "object", "array"] as const) {
    if (!kinds.has(kind)) continue;
    const value = asKind(trimmed, kind);
    if (value !== undefined) return value.value;
  }
  if (kinds.has("null") && trimmed === "") return null;
  return text;
}

/** Whether the tool's schema types `key` and lets it be a string. */
export function schemaAllowsString(toolSchema: Schema | undefined, key: string): boolean {
  return kindsOf(propertySchema(toolSchema, key))?.has("string") === true;
}

/**
 * The text of a value written as one CDATA section (`<![CDATA[a < b]]>`, as XML writers escape
 * markup), which an XML parser would read as its content; any other text unchanged.
 */
function unwrapCdata(text: string): string {
  const t = text.trim();
  if (!t.startsWith("<![CDATA[") || !t.endsWith("]]>")) return text;
  const inner = t.slice(9, -3);
  return inner.includes("]]>") ? text : inner;
}

function stripOneNewline(raw: string): string {
  let start = 0;
  let end = raw.length;
  if (raw.startsWith("\r\n")) start = 2;
  else if (raw.startsWith("\n")) start = 1;
  if (end - start >= 2 && raw.endsWith("\r\n")) end -= 2;
  else if (end > start && raw.endsWith("\n")) end -= 1;
  return raw.slice(start, end);
}

function propertySchema(toolSchema: Schema | undefined, key: string): Schema | undefined {
  const properties = toolSchema?.properties;
  if (properties === null || typeof properties !== "object") return undefined;
  if (!Object.hasOwn(properties, key)) return undefined;
  const property = (properties as Schema)[key];
  return property !== null && typeof property === "object" ? (property as Schema) : undefined;
}

/** The kinds a property allows, or undefined when its schema says nothing usable. */
function kindsOf(schema: Schema | undefined, depth = 0): Set<Kind> | undefined {
  if (schema === undefined || depth > 8) return undefined;
  const kinds = new Set<Kind>();
  const add = (type: unknown) => {
    const kind = typeof type === "string" ? kindName(type) : undefined;
    if (kind) kinds.add(kind);
  };
  if (Array.isArray(schema.type)) schema.type.forEach(add);
  else add(schema.type);
  for (const keyword of ["anyOf", "oneOf", "allOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      if (branch === null || typeof branch !== "object") continue;
      for (const k of kindsOf(branch as Schema, depth + 1) ?? []) kinds.add(k);
    }
  }
  const values = Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : undefined;
  if (kinds.size === 0 && values) for (const v of values) kinds.add(kindOfValue(v));
  if (schema.nullable === true) kinds.add("null");
  return kinds.size > 0 ? kinds : undefined;
}

/** JSON Schema type names, and the aliases tools write (vLLM accepts the same). */
function kindName(type: string): Kind | undefined {
  const t = type.trim().toLowerCase();
  if (["string", "str", "text", "varchar", "char", "enum"].includes(t)) return "string";
  if (t.startsWith("int") || t.startsWith("uint") || t === "long" || t === "short") return "integer";
  if (t.startsWith("num") || t.startsWith("float") || t === "double") return "number";
  if (t === "boolean" || t === "bool") return "boolean";
  if (t === "object" || t.startsWith("dict") || t === "map") return "object";
  if (t === "array" || t === "arr" || t.startsWith("list") || t === "tuple") return "array";
  if (t === "null" || t === "none") return "null";
  return undefined;
}

function kindOfValue(value: unknown): Kind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "object") return "object";
  return "string";
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function asKind(text: string, kind: Kind): { value: unknown } | undefined {
  switch (kind) {
    case "integer":
    case "number": {
      if (!NUMBER.test(text)) return undefined;
      const n = Number(text);
      if (!Number.isFinite(n) || (kind === "integer" && !Number.isInteger(n))) return undefined;
      return { value: n };
    }
    case "boolean": {
      const lower = text.toLowerCase();
      return lower === "true" || lower === "false" ? { value: lower === "true" } : undefined;
    }
    case "object":
    case "array": {
      const parsed = parseLenientJson(text);
      if (!parsed.ok || !fits(parsed.value, new Set([kind]))) return undefined;
      return { value: parsed.value };
    }
    default:
      return undefined;
  }
}

function fits(value: unknown, kinds: Set<Kind>): boolean {
  if (Array.isArray(value)) return kinds.has("array");
  if (value !== null && typeof value === "object") return kinds.has("object");
  return false;
}

/** `JSON.parse` without repairs, as `{ value }` so a parsed `null` is told apart from a failure. */
function strictJson(text: string): { value: unknown } | undefined {
  const t = text.trim();
  if (t === "" || textNestingDepth(t) > MAX_JSON_DEPTH) return undefined;
  try {
    return { value: JSON.parse(t) };
  } catch {
    return undefined;
  }
}
