import { type PythonCall, parsePythonCallList } from "./python-literal.ts";
import { isSpace, nextFinder, proseOutside, type Span, skipSpaces } from "./scan-text.ts";
import { MAX_TEXT_CALLS, type ParsedCall, type ToolFormat, type ToolFormatContext } from "./types.ts";

const FENCE = "```tool_code";
const CLOSE = "```";

/**
 * Gemma 2/3 have no tool tokens; Google's function-calling guide prompts them to wrap calls in a
 * ```` ```tool_code ```` block, one call a line, often `print(f(x=1))` or `print(default_api.f(x=1))`
 * (Gemini's habit), sometimes a list `[f(x=1), g(y=2)]`. The same fence also carries ordinary code
 * (`import numpy as np`), so a block is claimed only when every statement in it is a keyword-only call
 * of an offered tool; anything else in it keeps the whole block as prose. Text around the block is
 * prose. Names are returned as written (`default_api.get_weather`).
 */
export const gemmaFormat: ToolFormat = {
  id: "gemma",
  family: "Gemma 2/3 ```tool_code fenced pythonic calls",
  detect(text) {
    return text.includes(FENCE);
  },
  parse(text, ctx) {
    const fences = nextFinder(text, FENCE);
    const closes = nextFinder(text, CLOSE);
    const calls: ParsedCall[] = [];
    const spans: Span[] = [];
    let at = 0;
    while (calls.length < MAX_TEXT_CALLS) {
      const start = fences(at);
      if (start === -1) break;
      const bodyStart = start + FENCE.length;
      // `tool_code` must be the whole info string (not `tool_codes`).
      if (bodyStart < text.length && !isSpace(text.charCodeAt(bodyStart))) {
        at = bodyStart;
        continue;
      }
      const close = closes(bodyStart);
      const bodyEnd = close === -1 ? text.length : close;
      const end = close === -1 ? text.length : close + CLOSE.length;
      const found = blockCalls(text.slice(bodyStart, bodyEnd), ctx);
      if (found) {
        calls.push(...found.slice(0, MAX_TEXT_CALLS - calls.length));
        spans.push({ start, end });
      }
      at = end;
    }
    if (calls.length === 0) return undefined;
    return { calls, prose: proseOutside(text, spans) };
  },
};

/** The calls of a tool_code block, or undefined when anything in it is not a call of an offered tool. */
function blockCalls(body: string, ctx: ToolFormatContext): ParsedCall[] | undefined {
  const found: PythonCall[] = [];
  let pos = skipStatementGap(body, 0);
  while (pos < body.length) {
    const parsed = parsePythonCallList(body, pos, { unwrapPrint: true });
    if (!parsed.ok) return undefined;
    found.push(...parsed.calls);
    if (!parsed.closed) break; // the text ended inside this call
    pos = parsed.end;
    if (pos < body.length && !isSpace(body.charCodeAt(pos)) && body.charCodeAt(pos) !== 59) return undefined;
    pos = skipStatementGap(body, pos);
  }
  if (found.length === 0) return undefined;
  if (!found.every((c) => c.rejected === undefined && ctx.isToolName(c.name))) return undefined;
  return found.map((c) => ({ name: c.name, arguments: c.arguments, complete: c.complete }));
}

/** Whitespace and `;` between statements. */
function skipStatementGap(body: string, pos: number): number {
  for (;;) {
    pos = skipSpaces(body, pos);
    if (body.charCodeAt(pos) !== 59 /* ; */) return pos;
    pos++;
  }
}
