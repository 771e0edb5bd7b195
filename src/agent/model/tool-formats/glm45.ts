import { nextFinder } from "./finders.ts";
import { hasNonNameChar, runEnd } from "./name-chars.ts";
import { proseOutside, type Span } from "./prose.ts";
import { skipSpaces } from "./scan-text.ts";
import { MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";
import { typeXmlValue } from "./xml-values.ts";

const OPEN = "<tool_call>";
const CLOSE = "</tool_call>";
const KEY_OPEN = "<arg_key>";
const KEY_CLOSE = "</arg_key>";
const VALUE_OPEN = "<arg_value>";
const VALUE_CLOSE = "</arg_value>";
const MAX_NAME = 256;

/**
 * GLM-4.5/4.6 write `<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>SF</arg_value>\n
 * </tool_call>`, GLM-4.7 the same without newlines (vLLM `glm4_moe_tool_parser`, SGLang
 * `glm4_moe_detector` / `glm47_moe_detector`). The name runs to the first `<arg_key>`, newline or
 * `</tool_call>`; a `<tool_call>` whose body is JSON (Hermes) or `<function=` (Qwen3-Coder) is not
 * this family and is left to those. Values are trimmed and typed from the tool's schema. A call is
 * complete only once its `</tool_call>` was written.
 */
export const glm45Format: ToolFormat = {
  id: "glm45",
  family: "GLM-4.5/4.6/4.7 <tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
  detect(text) {
    return text.includes(OPEN);
  },
  parse(text, ctx) {
    const opens = nextFinder(text, OPEN);
    const closes = nextFinder(text, CLOSE);
    const keyCloses = nextFinder(text, KEY_CLOSE);
    const valueCloses = nextFinder(text, VALUE_CLOSE);
    const calls: ParsedCall[] = [];
    const spans: Span[] = [];
    let at = 0;
    while (calls.length < MAX_TEXT_CALLS) {
      const start = opens(at);
      if (start === -1) break;
      at = start + OPEN.length;
      // The name follows the tag at once (a line break at most): `<tool_call> tags` is prose.
      let nameStart = at;
      while (text.charCodeAt(nameStart) === 10 || text.charCodeAt(nameStart) === 13) nameStart++;
      const nameEnd = runEnd(text, nameStart, (c) => c !== 60 /* < */ && c !== 10 && c !== 13, MAX_NAME);
      const name = text.slice(nameStart, nameEnd).trimEnd();
      if (name === "" || hasNonNameChar(name)) continue;
      let pos = skipSpaces(text, nameEnd);
      if (pos < text.length && !text.startsWith(KEY_OPEN, pos) && !text.startsWith(CLOSE, pos)) continue;
      const schema = ctx.schemaOf(name);
      const raws = new Map<string, string>(); // the last value written for a key wins
      let closed = false;
      for (;;) {
        const p = skipGap(text, pos);
        if (p >= text.length) {
          pos = p;
          break;
        }
        if (text.startsWith(CLOSE, p)) {
          closed = true;
          pos = p + CLOSE.length;
          break;
        }
        if (!text.startsWith(KEY_OPEN, p)) {
          // Stray text before the close: skip to it. At the next call (or with no close ahead) this
          // call ends unclosed.
          const close = closes(p);
          const nextCall = opens(p);
          if (close === -1 || (nextCall !== -1 && nextCall < close)) {
            pos = p;
            break;
          }
          pos = close;
          continue;
        }
        const keyEnd = keyCloses(p + KEY_OPEN.length);
        if (keyEnd === -1) {
          pos = text.length;
          break;
        }
        const key = text.slice(p + KEY_OPEN.length, keyEnd).trim();
        const v = skipGap(text, keyEnd + KEY_CLOSE.length);
        if (v >= text.length || !text.startsWith(VALUE_OPEN, v)) {
          pos = v;
          break;
        }
        const valueEnd = valueCloses(v + VALUE_OPEN.length);
        raws.set(key, text.slice(v + VALUE_OPEN.length, valueEnd === -1 ? text.length : valueEnd).trim());
        if (valueEnd === -1) {
          pos = text.length;
          break;
        }
        pos = valueEnd + VALUE_CLOSE.length;
      }
      const args = [...raws].map(([key, raw]) => [key, typeXmlValue(raw, schema, key)] as const);
      calls.push({ name, arguments: Object.fromEntries(args), complete: closed });
      spans.push({ start, end: pos });
      at = pos;
    }
    if (calls.length === 0) return undefined;
    return { calls, prose: proseOutside(text, spans) };
  },
};

/** Whitespace and the literal `\n` GLM sometimes writes between tags (vLLM's regex allows both). */
function skipGap(text: string, pos: number): number {
  for (;;) {
    pos = skipSpaces(text, pos);
    if (text.charCodeAt(pos) !== 92 /* \ */ || text.charCodeAt(pos + 1) !== 110 /* n */) return pos;
    pos += 2;
  }
}
