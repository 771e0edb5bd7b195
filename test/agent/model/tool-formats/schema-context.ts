import type {
  FormatMatch,
  ToolFormat,
  ToolFormatContext,
} from "../../../../src/agent/model/tool-formats/types.ts";

/** Tools offered in the pythonic / Gemma / XML / harmony format tests, with the schemas XML values are typed from. */
export const schemas: Record<string, Record<string, unknown>> = {
  get_weather: {
    type: "object",
    properties: {
      city: { type: "string" },
      days: { type: "integer" },
      metric: { type: "boolean" },
      tags: { type: "array", items: { type: "string" } },
    },
  },
  get_time: { type: "object", properties: {} },
  register_user: {
    type: "object",
    properties: { name: { type: "string" }, age: { type: "integer" }, address: { type: "object" } },
  },
  calculate_area: {
    type: "object",
    properties: { shape: { type: "string" }, dimensions: { type: "object" }, precision: { type: "integer" } },
  },
  bash: { type: "object", properties: { command: { type: "string" } } },
};

/** Names resolve as the registry does: a `functions.` / `default_api.` namespace is not part of the name. */
function bare(name: string): string {
  return name.replace(/^(functions|default_api)\./, "");
}

export const ctx: ToolFormatContext = {
  schemaOf: (name) => schemas[bare(name)],
  isToolName: (name) => Object.hasOwn(schemas, bare(name)),
};

/** What the normalizer would get from one format: undefined unless it detects and parses the text. */
export function read(format: ToolFormat, text: string): FormatMatch | undefined {
  return format.detect(text) ? format.parse(text, ctx) : undefined;
}

/** The arguments of a call as a value, whether the format returned JSON text or an object. */
export function argsOf(value: string | Record<string, unknown>): unknown {
  return typeof value === "string" ? JSON.parse(value) : value;
}
