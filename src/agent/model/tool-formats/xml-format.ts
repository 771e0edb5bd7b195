import { proseOutside } from "./prose.ts";
import type { FormatMatch, ToolFormatContext } from "./types.ts";
import { scanXmlCalls, type XmlDialect, type XmlParam } from "./xml-calls.ts";

/** A parameter's value, typed for the call's tool (its schema, when the tool is known). */
export type XmlValueOf = (param: XmlParam, schema: Record<string, unknown> | undefined) => unknown;

/**
 * The calls of an XML family (Qwen3-Coder, MiniMax-M2, DeepSeek DSML) as arguments objects: each
 * parameter's value typed by `typeValue`, the last value written for a key winning (each key typed
 * once). Undefined when the text holds no call of this dialect.
 */
export function parseXmlCalls(
  text: string,
  ctx: ToolFormatContext,
  dialect: XmlDialect,
  typeValue: XmlValueOf,
): FormatMatch | undefined {
  const { calls, spans } = scanXmlCalls(text, dialect);
  if (calls.length === 0) return undefined;
  return {
    calls: calls.map((call) => {
      const schema = ctx.schemaOf(call.name);
      const params = new Map(call.params.map((p) => [p.name, p]));
      const args = [...params.values()].map((p) => [p.name, typeValue(p, schema)] as const);
      return { name: call.name, arguments: Object.fromEntries(args), complete: call.complete };
    }),
    prose: proseOutside(text, spans),
  };
}
