import { parseLenientJson } from "../../../core/lenient-json.ts";
import type { ToolFormat } from "./types.ts";
import type { XmlDialect, XmlParam } from "./xml-calls.ts";
import { parseXmlCalls } from "./xml-format.ts";
import { schemaAllowsString, typeXmlValue } from "./xml-values.ts";

/** DSML's tags around the `｜DSML｜` token (fullwidth bars, as the tokenizer decodes them). */
function dsmlDialect(token: string): XmlDialect {
  return {
    callOpen: `<${token}invoke name=`,
    callClose: `</${token}invoke>`,
    paramOpen: `<${token}parameter name=`,
    paramClose: `</${token}parameter>`,
    wrapperOpen: `<${token}function_calls>`,
    wrapperClose: `</${token}function_calls>`,
    header: "attribute",
    paramOpenStartsLine: false,
  };
}

const FULLWIDTH = "｜DSML｜";
/** Seen when text was re-typed or normalized to ASCII bars. */
const ASCII = "|DSML|";

/**
 * DeepSeek V3.2 writes its calls in DSML: `<｜DSML｜function_calls>\n<｜DSML｜invoke name="get_weather">\n
 * <｜DSML｜parameter name="city" string="true">SF</｜DSML｜parameter>\n</｜DSML｜invoke>\n
 * </｜DSML｜function_calls>` (vLLM `deepseekv32_tool_parser` and its tests). `string="true"` marks the
 * value as a string, `string="false"` as JSON; a schema that asks for another type still wins (as
 * vLLM's schema-aware fixer does), so `string="true">42` for an integer is 42. A call is complete only
 * once its `</｜DSML｜invoke>` was written.
 */
export const deepseekDsmlFormat: ToolFormat = {
  id: "deepseek_dsml",
  family: "DeepSeek V3.2 DSML <｜DSML｜function_calls><｜DSML｜invoke name=…>",
  detect(text) {
    return text.includes(FULLWIDTH) || text.includes(ASCII);
  },
  parse(text, ctx) {
    const token = text.includes(`<${FULLWIDTH}invoke`) ? FULLWIDTH : ASCII;
    return parseXmlCalls(text, ctx, dsmlDialect(token), dsmlValue);
  },
};

function dsmlValue(param: XmlParam, schema: Record<string, unknown> | undefined): unknown {
  const typed = typeXmlValue(param.raw, schema, param.name);
  if (param.attributes.string !== "false" || typeof typed !== "string") return typed;
  // string="false": the model wrote JSON. A string-typed key still gets a string (a JSON string's text).
  const parsed = parseLenientJson(param.raw.trim());
  if (!parsed.ok) return typed;
  return typeof parsed.value === "string" || !schemaAllowsString(schema, param.name) ? parsed.value : typed;
}
