import { z } from "zod";
import { errorMessage } from "../../core/errors.ts";

type JsonSchema = Record<string, unknown>;

export interface InputSchemaOptions {
  /**
   * Whether `pattern` becomes a regex check (default true). An admin writes an HTTP tool's schema; an
   * MCP server's `pattern` is not ours to run: a catastrophic one (`^(a+)+$`) would hold the main
   * thread while zod checks the model's arguments, and the server validates its own input anyway.
   */
  patterns?: boolean;
  /** A `maxLength` for every string schema that has none or a larger one (default none). */
  maxStringLength?: number;
}

export type InputSchemaResult =
  | { ok: true; schema: z.ZodObject; properties: string[]; required: string[] }
  | { ok: false; problem: string };

/**
 * An HTTP tool's `input` (JSON Schema) as a zod object, with zod's own `z.fromJSONSchema`. Objects
 * without `additionalProperties` are closed first: the registry then tells the model so and drops
 * unknown keys, and nothing the schema does not name reaches the request body.
 */
export function inputSchemaFromJson(input: unknown, options: InputSchemaOptions = {}): InputSchemaResult {
  if (!isObject(input)) return { ok: false, problem: "must be a JSON Schema object" };
  if (input.type !== undefined && input.type !== "object") {
    return { ok: false, problem: `must have type: object (got ${JSON.stringify(input.type)})` };
  }
  const root: JsonSchema = { type: "object", properties: {}, ...input };
  if (!isObject(root.properties)) return { ok: false, problem: "properties must be a map of name → schema" };
  const properties = Object.keys(root.properties);
  const required = Array.isArray(root.required) ? root.required : [];
  const unknownRequired = required.filter((r) => typeof r !== "string" || !properties.includes(r));
  if (unknownRequired.length > 0) {
    return { ok: false, problem: `required lists ${unknownRequired.join(", ")}, which is not a property` };
  }
  if (options.patterns !== false) {
    const badPattern = findBadPattern(root, "");
    if (badPattern) return { ok: false, problem: badPattern };
  }

  let schema: z.ZodType;
  try {
    const closed = closeObjects(root, {
      patterns: options.patterns !== false,
      maxStringLength: options.maxStringLength,
    });
    schema = z.fromJSONSchema(closed as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    return { ok: false, problem: errorMessage(err) };
  }
  if (!(schema instanceof z.ZodObject)) return { ok: false, problem: "must describe an object" };
  return { ok: true, schema, properties, required: required as string[] };
}

function isObject(v: unknown): v is JsonSchema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

interface CloseOptions {
  patterns: boolean;
  maxStringLength: number | undefined;
}

/**
 * A deep copy with `additionalProperties: false` on every object schema that does not say; without
 * `patterns`, `pattern` keys are left out; with `maxStringLength`, strings get that cap.
 */
function closeObjects(schema: unknown, options: CloseOptions): unknown {
  if (Array.isArray(schema)) return schema.map((item) => closeObjects(item, options));
  if (!isObject(schema)) return schema;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    // `patternProperties` keys are regexes too: the keys they allowed pass unchecked instead.
    if ((key === "pattern" || key === "patternProperties") && !options.patterns) continue;
    // `properties` maps names to schemas; `enum`, `const`, `default` and `examples` are data.
    if (key === "properties" && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, closeObjects(v, options)]));
    } else if (["enum", "const", "default", "examples"].includes(key)) {
      out[key] = value;
    } else {
      out[key] = closeObjects(value, options);
    }
  }
  const cap = options.maxStringLength;
  const isString = out.type === "string" || (Array.isArray(out.type) && out.type.includes("string"));
  if (cap !== undefined && isString && !(typeof out.maxLength === "number" && out.maxLength <= cap)) {
    out.maxLength = cap;
  }
  if (!options.patterns && isObject(schema.patternProperties) && out.additionalProperties === undefined) {
    out.additionalProperties = {};
  }
  const isObjectType = out.type === "object" || (out.type === undefined && isObject(out.properties));
  if (isObjectType && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** zod compiles `pattern` lazily; a broken one would only fail at the first call. */
function findBadPattern(schema: unknown, path: string): string | undefined {
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) {
      const bad = findBadPattern(item, `${path}[${i}]`);
      if (bad) return bad;
    }
    return undefined;
  }
  if (!isObject(schema)) return undefined;
  if (typeof schema.pattern === "string") {
    try {
      new RegExp(schema.pattern);
    } catch (err) {
      return `${path || "(input)"}: pattern ${errorMessage(err)}`;
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if (["enum", "const", "default", "examples", "pattern"].includes(key)) continue;
    const bad = findBadPattern(value, key === "properties" ? path : path ? `${path}.${key}` : key);
    if (bad) return bad;
  }
  return undefined;
}
