import { proseOutside } from "./scan-text.ts";
import type { ToolFormat } from "./types.ts";
import { scanXmlCalls, type XmlDialect } from "./xml-calls.ts";
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
 * too. Values are trimmed (as vLLM does) and typed from the tool's schema.
 */
export const minimaxXmlFormat: ToolFormat = {
  id: "minimax_xml",
  family: "MiniMax-M2 <minimax:tool_call><invoke name=…><parameter name=…>",
  detect(text) {
    return text.includes(MINIMAX_M2.callOpen);
  },
  parse(text, ctx) {
    const { calls, spans } = scanXmlCalls(text, MINIMAX_M2);
    if (calls.length === 0) return undefined;
    return {
      calls: calls.map((call) => {
        const schema = ctx.schemaOf(call.name);
        // The last value written for a key wins; each key is typed once.
        const raws = new Map(call.params.map((p) => [p.name, p.raw.trim()]));
        const args = [...raws].map(([key, raw]) => [key, typeXmlValue(raw, schema, key)] as const);
        return { name: call.name, arguments: Object.fromEntries(args), complete: call.complete };
      }),
      prose: proseOutside(text, spans),
    };
  },
};
