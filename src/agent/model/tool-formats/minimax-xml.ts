import type { ToolFormat } from "./types.ts";
import type { XmlDialect } from "./xml-calls.ts";
import { parseXmlCalls } from "./xml-format.ts";
import { typeXmlValue } from "./xml-values.ts";

const MINIMAX_M2: XmlDialect = {
  callOpen: "<invoke name=",
  callClose: "</invoke>",
  paramOpen: "<parameter name=",
  paramClose: "</parameter>",
  wrapperOpen: "<minimax:tool_call>",
  wrapperClose: "</minimax:tool_call>",
  header: "attribute",
  paramOpenStartsLine: false,
};

/**
 * MiniMax-M2 writes `<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">SF</parameter>\n
 * </invoke>\n</minimax:tool_call>`, several `<invoke>` in one wrapper for parallel calls (vLLM
 * `minimax_m2_tool_parser`, SGLang `minimax_m2`). A bare `<invoke name=…>` without the wrapper is read
 * too. Values are trimmed (as vLLM does) and typed from the tool's schema. A call is complete only
 * once its `</invoke>` was written.
 */
export const minimaxXmlFormat: ToolFormat = {
  id: "minimax_xml",
  family: "MiniMax-M2 <minimax:tool_call><invoke name=…><parameter name=…>",
  detect: (text) => text.includes(MINIMAX_M2.callOpen),
  parse: (text, ctx) =>
    parseXmlCalls(text, ctx, MINIMAX_M2, (p, schema) => typeXmlValue(p.raw.trim(), schema, p.name)),
};
