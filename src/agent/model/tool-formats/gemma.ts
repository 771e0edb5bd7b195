import { markedCallsFormat } from "./marked-calls.ts";
import { type PythonCall, parsePythonCallList } from "./python-literal.ts";
import { isSpace, skipSpaces } from "./scan-text.ts";
import { MAX_TEXT_CALLS, type ParsedCall, type ToolFormatContext } from "./types.ts";

/**
 * Gemma 2/3 have no tool tokens; Google's function-calling guide prompts them to wrap calls in a
 * ```` ```tool_code ```` block, one call a line, often `print(f(x=1))` or `print(default_api.f(x=1))`
 * (Gemini's habit), sometimes a list `[f(x=1), g(y=2)]`. The same fence also carries ordinary code
 * (`import numpy as np`), so a block is claimed only when every statement in it is a keyword-only call
 * of an offered tool; anything else in it keeps the whole block as prose. A block cut off inside its
 * last statement ends in an incomplete call (its name may be cut too). Text around the block is
 * prose. Names are returned as written (`default_api.get_weather`).
 */
export const gemmaFormat = markedCallsFormat({
  id: "gemma",
  family: "Gemma 2/3 ```tool_code fenced pythonic calls",
  markers: { open: ["```tool_code"], close: ["```"] },
  read: (text, pos, at) => {
    // `tool_code` must be the whole info string (not `tool_codes`).
    if (pos < text.length && !isSpace(text.charCodeAt(pos))) return undefined;
    const calls = blockCalls(text.slice(pos, at.limit), at.ctx);
    return calls && { calls, end: at.limit };
  },
});

/** The calls of a tool_code block, or undefined when anything in it is not a call of an offered tool. */
function blockCalls(body: string, ctx: ToolFormatContext): ParsedCall[] | undefined {
  const found: PythonCall[] = [];
  let pos = skipStatementGap(body, 0);
  while (pos < body.length) {
    const parsed = parsePythonCallList(body, pos, { unwrapPrint: true });
    if (!parsed.ok) return undefined;
    found.push(...parsed.calls);
    // More calls than any model writes in one message: not a call block (as a pythonic list).
    if (found.length > MAX_TEXT_CALLS) return undefined;
    if (!parsed.closed) break; // the text ended inside this statement: its calls are incomplete
    pos = parsed.end;
    if (pos < body.length && !isSpace(body.charCodeAt(pos)) && body.charCodeAt(pos) !== 59) return undefined;
    pos = skipStatementGap(body, pos);
  }
  if (found.length === 0) return undefined;
  // A name cut off with its statement cannot be checked against the tools; it is never run anyway.
  const usable = (c: PythonCall) => c.rejected === undefined && (!c.complete || ctx.isToolName(c.name));
  if (!found.every(usable)) return undefined;
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
