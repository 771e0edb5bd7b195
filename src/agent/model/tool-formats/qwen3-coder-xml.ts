import type { ToolFormat } from "./types.ts";
import type { XmlDialect } from "./xml-calls.ts";
import { parseXmlCalls } from "./xml-format.ts";
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

/** Seed-OSS writes the same calls inside `<seed:tool_call>…</seed:tool_call>`. */
const SEED_OSS: XmlDialect = {
  ...QWEN3_CODER,
  wrapperOpen: "<seed:tool_call>",
  wrapperClose: "</seed:tool_call>",
};

/** `<function=x>{…}`: functionary v3.1 / Llama 3.1's JSON body, not this family's parameters. */
const JSON_BODY = /<function=[^>\n]{1,128}>\s*\{/;

/**
 * Qwen3-Coder (and Qwen3.5, Seed-OSS) write XML calls:
 * `<tool_call>\n<function=get_weather>\n<parameter=city>\nSF\n</parameter>\n</function>\n</tool_call>`,
 * several in a row, sometimes without the `<tool_call>` wrapper or a `</parameter>` (vLLM
 * `qwen3coder_tool_parser` accepts both). Values are typed from the tool's schema (as written: the
 * one line break around a value is dropped by the typing). A call is complete only once its
 * `</function>` was written.
 */
export const qwen3CoderXmlFormat: ToolFormat = {
  id: "qwen3_coder_xml",
  family: "Qwen3-Coder / Qwen3.5 <function=name><parameter=k>v</parameter></function>",
  detect: (text) => text.includes(QWEN3_CODER.callOpen),
  parse: (text, ctx) =>
    JSON_BODY.test(text)
      ? undefined
      : parseXmlCalls(text, ctx, text.includes(SEED_OSS.wrapperOpen) ? SEED_OSS : QWEN3_CODER, (p, schema) =>
          typeXmlValue(p.raw, schema, p.name),
        ),
};
