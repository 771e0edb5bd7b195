import { deepseekTokens, opensCalls } from "./deepseek-tokens.ts";
import { argumentsIn } from "./json-call-scan.ts";
import { joinProse, skipSpace } from "./marker-scan.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall, type ToolFormat } from "./types.ts";

const MAX_HEADER = 256;

/**
 * DeepSeek V3 / R1: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n
 * ```json\n{…}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>`, and V3.1 / V3.2-Exp:
 * `<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`, several calls in one section,
 * in any spelling of the tokens (see deepseek-tokens.ts). A call's own begin token is optional (llama.cpp
 * accepts calls written without it). Arguments are the raw JSON text. A call whose end token never
 * came is complete when its JSON closes; one cut off before its separator is incomplete. V3.2's DSML
 * markup (`<｜DSML｜…`) is another format.
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
  const nextOpening = (from: number) => {
    let token = next(from);
    while (token && !opensCalls(token)) token = next(token.end);
    return token;
  };
  const first = nextOpening(0);
  if (!first) return undefined;
  const calls: ParsedCall[] = [];
  const prose = [text.slice(0, first.at)];
  let i = first.at;
  while (calls.length < MAX_TEXT_CALLS) {
    i = skipSpace(text, i);
    const ahead = next(i);
    const here = ahead?.at === i ? ahead : undefined;
    if (here?.kind === "calls_begin") {
      i = here.end;
      continue;
    }
    if (here?.kind === "calls_end") {
      i = here.end;
      const again = nextOpening(i);
      if (!again) break;
      prose.push(text.slice(i, again.at));
      i = again.at;
      continue;
    }
    if ((here && here.kind !== "call_begin") || i >= text.length) break; // a stray token: the rest is prose
    const headerStart = here ? here.end : i;
    const sep = next(headerStart);
    if (sep?.kind !== "sep") {
      // No separator before the next token: cut off inside the name, or no call at all.
      const stop = sep?.at ?? text.length;
      const header = text.slice(headerStart, stop).trim();
      if (stop === text.length && isHeader(header) && header !== "function" && !/\s/.test(header)) {
        calls.push({ name: header, arguments: "", complete: false });
        i = stop;
      }
      break;
    }
    const header = text.slice(headerStart, sep.at).trim();
    if (!isHeader(header)) break;
    const after = next(sep.end);
    const stop = after?.at ?? text.length;
    let name = header;
    let argsStart = sep.end;
    if (header === "function") {
      // V3 writes the type first and the name on the line after the separator.
      const nameEnd = endOfName(text, argsStart, stop);
      const written = text.slice(argsStart, nameEnd).trim();
      if (written !== "") {
        name = written;
        argsStart = nameEnd;
      }
    }
    const closed = after?.kind === "call_end";
    const found = argumentsIn(text.slice(argsStart, stop), closed);
    calls.push({ name, arguments: found.args, complete: found.complete });
    prose.push(found.rest);
    i = closed ? after.end : stop;
  }
  prose.push(text.slice(i));
  if (calls.length === 0) return undefined;
  return { calls, prose: joinProse(prose) };
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
