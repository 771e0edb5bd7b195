import { proseOutside } from "./scan-text.ts";
import type { ToolFormat } from "./types.ts";
import { scanXmlCalls, type XmlDialect } from "./xml-calls.ts";
import { typeXmlValue } from "./xml-values.ts";

const QWEN3_CODER: XmlDialect = {
  callOpen: "<function=",
  callClose: "</function>",
  paramOpen: "<parameter=",
  paramClose: "</parameter>",
  wrapperOpen: "<tool_call>",
  wrapperClose: "</tool_call>",
  header: "bare",
  paramOpenStartsLine: true,
};

/**
 * Qwen3-Coder (and Qwen3.5, Seed-OSS-style templates) write XML calls:
 * `<tool_call>\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n</tool_call>`,
 * several in a row, sometimes without the `<tool_call>` wrapper or a `</parameter>` (vLLM
 * `qwen3coder_tool_parser` accepts both). Values are typed from the tool's schema. A call is incomplete
 * only when the text ended inside a parameter (or its tag) before `</function>`.
 */
export const qwen3CoderXmlFormat: ToolFormat = {
  id: "qwen3_coder_xml",
  family: "Qwen3-Coder / Qwen3.5 <function=name><parameter=k>v</parameter></function>",
  detect(text) {
    return text.includes(QWEN3_CODER.callOpen);
  },
  parse(text, ctx) {
    const { calls, spans } = scanXmlCalls(text, QWEN3_CODER);
    if (calls.length === 0) return undefined;
    return {
      calls: calls.map((call) => {
        const schema = ctx.schemaOf(call.name);
        // The last value written for a key wins; each key is typed once.
        const raws = new Map(call.params.map((p) => [p.name, p.raw]));
        const args = [...raws].map(([key, raw]) => [key, typeXmlValue(raw, schema, key)] as const);
        return { name: call.name, arguments: Object.fromEntries(args), complete: call.complete };
      }),
      prose: proseOutside(text, spans),
    };
  },
};
