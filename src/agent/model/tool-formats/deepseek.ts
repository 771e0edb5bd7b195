import { type DeepseekToken, deepseekTokenAt, deepseekTokens, opensCalls } from "./deepseek-tokens.ts";
import type { StopAt } from "./json-calls.ts";
import { proseOutside, type Span } from "./prose.ts";
import { skipSpaces } from "./scan-text.ts";
import { argumentsAt } from "./token-arguments.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

const MAX_HEADER = 256;

/**
 * DeepSeek V3 / R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n
 * ```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, and V3.1 / V3.2-Exp:
 * `<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`, several calls in one section,
 * in any spelling of the tokens (see deepseek-tokens.ts). A call's own begin token is optional (llama.cpp
 * accepts calls written without it). Arguments are the raw JSON text, scanned to their own end (a token
 * inside a string is text); a call is complete when its JSON closed, or, for arguments that are no
 * JSON, when its end token came. One cut off before its separator is incomplete. Text after a call's
 * end that starts no call is prose. V3.2's DSML markup (`<｜DSML｜…`) is another format.
 */
export const deepseekFormat: ToolFormat = {
  id: "deepseek",
  family: "DeepSeek V3 / R1 (function<｜tool▁sep｜>name + ```json), V3.1 (name<｜tool▁sep｜>{json})",
  detect: (text) =>
    text.includes("tool▁call") || text.includes("tool_calls_begin") || text.includes("tool calls begin"),
  parse: parseDeepseek,
};

function parseDeepseek(text: string): FormatMatch | undefined {
  const next = deepseekTokens(text);
  const stop: StopAt = (at) => text.charCodeAt(at) === 60 /* < */ && deepseekTokenAt(text, at) !== undefined;
  const nextOpening = (from: number) => {
    let token = next(from);
    while (token && !opensCalls(token)) token = next(token.end);
    return token;
  };
  const first = nextOpening(0);
  if (!first) return undefined;
  const calls: ParsedCall[] = [];
  const spans: Span[] = [];
  const consume = (token: DeepseekToken) => {
    spans.push({ start: token.at, end: token.end });
    return token.end;
  };
  let i = first.at;
  // Where a call may start without its begin token and be cut off before its separator: first in
  // the section. After a call's end, text that is not a whole `name<｜tool▁sep｜>` is prose.
  let callExpected = true;
  while (calls.length < MAX_TEXT_CALLS) {
    i = skipSpaces(text, i);
    const ahead = next(i);
    const here = ahead?.at === i ? ahead : undefined;
    if (here?.kind === "calls_begin") {
      i = consume(here);
      callExpected = true;
      continue;
    }
    if (here?.kind === "calls_end") {
      i = consume(here);
      const again = nextOpening(i);
      if (!again) break;
      i = again.at;
      continue;
    }
    if ((here && here.kind !== "call_begin") || i >= text.length) break; // a stray token: the rest is prose
    const headerStart = here ? here.end : i;
    const sep = next(headerStart);
    if (sep?.kind !== "sep") {
      // No separator before the next token: cut off inside the name, or no call at all.
      const stopAt = sep?.at ?? text.length;
      const header = text.slice(headerStart, stopAt).trim();
      const cut = stopAt === text.length && (here !== undefined || callExpected);
      if (cut && isHeader(header) && header !== "function" && !/\s/.test(header)) {
        calls.push({ name: header, arguments: "", complete: false });
        spans.push({ start: i, end: stopAt });
      }
      break;
    }
    const header = text.slice(headerStart, sep.at).trim();
    if (!isHeader(header)) break;
    const after = next(sep.end);
    const limit = after?.at ?? text.length;
    let name = header;
    let argsStart = sep.end;
    if (header === "function") {
      // V3 writes the type first and the name on the line after the separator.
      const nameEnd = endOfName(text, argsStart, limit);
      const written = text.slice(argsStart, nameEnd).trim();
      // Markup where the name goes (Step-3's `<steptml:invoke name="x">`): another family's call.
      if (written.startsWith("<")) return undefined;
      if (written !== "") {
        name = written;
        argsStart = nameEnd;
      }
    }
    const found = argumentsAt({
      text,
      from: argsStart,
      limit,
      closedAtLimit: after?.kind === "call_end",
      stop,
    });
    calls.push({ name, arguments: found.args, complete: found.complete });
    spans.push({ start: i, end: found.end });
    // The call's end token, after the arguments or after prose written behind them.
    const end = next(found.end);
    i = end?.kind === "call_end" ? consume(end) : found.end;
    callExpected = false;
  }
  if (calls.length === 0) return undefined;
  return { calls, prose: proseOutside(text, spans) };
}

/** A name (or V3's `function`): short, on one line, not the start of other markup. */
function isHeader(header: string): boolean {
  return header !== "" && header.length <= MAX_HEADER && !header.includes("\n") && !header.includes("<");
}

/** Where V3's name line ends: a line break, the fence, or the JSON itself. */
function endOfName(text: string, from: number, stop: number): number {
  const limit = Math.min(stop, from + MAX_HEADER);
  let i = from;
  while (i < limit) {
    const c = text[i];
    if (c === "\n" || c === "`" || c === "{") break;
    i++;
  }
  return i;
}
