import { isRecord } from "./json-calls.ts";
import { skipSpaces } from "./scan-text.ts";
import { MAX_TEXT_CALLS } from "./types.ts";
import { typeXmlValue } from "./xml-values.ts";

/** Parameters read per call (as many as calls per message: no tool takes more). */
const MAX_PARAMS = MAX_TEXT_CALLS;

/**
 * XML-ish parameters in any of the spellings the families use, from `from` on:
 * `<parameter=k>v</parameter>` (Qwen3-Coder, Seed-OSS), `<parameter name="k">v</parameter>` with any
 * namespace (`<steptml:parameter name="k">`, `<param name="k">`, `<argument name="k">`),
 * `<arg_key>k</arg_key><arg_value>v</arg_value>` (GLM), and `<k>v</k>` for a property the tool's
 * schema declares. Values are typed from the schema (`typeXmlValue`). Stops at the first tag that is
 * none of these. `complete` is false when a value's closing tag was never written. Undefined when no
 * parameter starts at `from`. Linear: each value's close is one forward search.
 */
export function readXmlParams(
  text: string,
  from: number,
  schema: Record<string, unknown> | undefined,
): { args: Record<string, unknown>; end: number; complete: boolean } | undefined {
  const args: Record<string, unknown> = {};
  let count = 0;
  let p = skipSpaces(text, from);
  while (count < MAX_PARAMS) {
    const open = paramOpen(text, p, schema);
    if (!open) break;
    const close = text.indexOf(open.close, open.valueStart);
    if (close < 0) {
      args[open.key] = typeXmlValue(text.slice(open.valueStart), schema, open.key);
      return { args, end: text.length, complete: false };
    }
    args[open.key] = typeXmlValue(text.slice(open.valueStart, close), schema, open.key);
    count++;
    p = skipSpaces(text, close + open.close.length);
  }
  return count === 0 ? undefined : { args, end: p, complete: true };
}

/** The parameter tag at `p`: its key, where its value starts and the tag that closes it. */
function paramOpen(
  text: string,
  p: number,
  schema: Record<string, unknown> | undefined,
): { key: string; valueStart: number; close: string } | undefined {
  if (text.charCodeAt(p) !== 60 /* < */) return undefined;
  const head =
    /^<([\w.-]+:)?(parameter|param|argument|arg)(?:=([^>\s]{1,128})|\s+name\s*=\s*(?:"([^"]{1,128})"|'([^']{1,128})')[^>]{0,128})>/.exec(
      text.slice(p, p + 320),
    );
  if (head) {
    const key = head[3] ?? head[4] ?? head[5] ?? "";
    return { key, valueStart: p + head[0].length, close: `</${head[1] ?? ""}${head[2]}>` };
  }
  if (text.startsWith("<arg_key>", p)) {
    const keyEnd = text.indexOf("</arg_key>", p);
    if (keyEnd < 0 || keyEnd - p > 160) return undefined;
    const key = text.slice(p + 9, keyEnd).trim();
    const v = skipSpaces(text, keyEnd + 10);
    if (!text.startsWith("<arg_value>", v)) return undefined;
    return { key, valueStart: v + 11, close: "</arg_value>" };
  }
  const plain = /^<([A-Za-z_][\w-]{0,63})>/.exec(text.slice(p, p + 80));
  const properties = isRecord(schema?.properties) ? schema.properties : undefined;
  if (plain && properties && Object.hasOwn(properties, plain[1]!)) {
    return { key: plain[1]!, valueStart: p + plain[0].length, close: `</${plain[1]}>` };
  }
  return undefined;
}
