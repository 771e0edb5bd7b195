import { blockquoteRegions, codeRegions, introducedAsExample, type Region } from "../code-regions.ts";
import { accept, type Candidate, parseString, readJsonCalls } from "./call-candidates.ts";
import { type CallSite, callSiteFinder } from "./call-sites.ts";
import { scanJsonValue } from "./json-calls.ts";
import { leadsIn } from "./leads-in.ts";
import { isQualifiedNameChar, runEnd } from "./name-chars.ts";
import { proseOutside, type Span } from "./prose.ts";
import { parsePythonCall } from "./python-literal.ts";
import { parseJsonWithin, type RepairBudget, repairBudget } from "./repair-budget.ts";
import { isSpace, skipFenceOpener, skipSpaces } from "./scan-text.ts";
import type { FormatMatch, ParsedCall, ToolFormat, ToolFormatContext } from "./types.ts";
import { MAX_TEXT_CALLS } from "./types.ts";
import { wholeMessageCalls } from "./whole-message-calls.ts";
import { readXmlParams } from "./xml-params.ts";

export { fittingArguments } from "./call-candidates.ts";

/** Call sites examined per message; past this many the rest stays text. */
const MAX_SITES = 64;
/** Longest gap read between a name and its arguments (`\nAction Input: `, a token). */
const MAX_GAP = 64;

/**
 * The last reader: a call in markup no family reader knows (`<xyz_tool_call>{…}`, Cohere's
 * `<|START_ACTION|>[…]`, `Action: x` + `Action Input: {…}`, functionary's `>>>x\n{…}`, Olmo's
 * `<function_calls>x(k=1)`, Step's `<steptml:invoke name="x"><steptml:parameter name="k">`,
 * Apertus' `[{"x": {…}}]`, Cline's `<x>\n<k>v</k>\n</x>`), read with the value readers the families
 * use (JSON call objects, XML-ish parameter tags typed from the schema, Python keyword arguments), or
 * a message that is nothing but its call (whole-message-calls.ts), and kept only when
 * - the name is an offered tool (a name that is not is never recovered),
 * - the arguments fit that tool's JSON Schema (a wrapper key — `{"arguments": {…}}` — is taken off
 *   when the inner object fits and the outer does not),
 * - and the site stands where calls stand (see leadsIn) and is not quoted: in code, in a
 *   blockquote, or introduced as an example.
 * A call whose arguments never closed is returned incomplete (never executed). Linear: sites and
 * values are each scanned once; at most MAX_SITES sites and MAX_TEXT_CALLS calls.
 */
export const schemaGuidedFormat: ToolFormat = {
  id: "schema_guided",
  family: "any call-like markup naming an offered tool, arguments checked against its schema",
  detect: (text) => text.includes("<") || text.includes(":") || text.includes(">>>") || text.includes("{"),
  parse: parseSchemaGuided,
};

function parseSchemaGuided(text: string, ctx: ToolFormatContext): FormatMatch | undefined {
  const next = callSiteFinder(text, ctx.isToolName);
  const budget = repairBudget();
  let quoted: Region[] | undefined;
  const isQuoted = (at: number) => {
    quoted ??= [...codeRegions(text), ...blockquoteRegions(text)];
    return quoted.some((r) => r.start <= at && at < r.end) || introducedAsExample(text, at);
  };
  const calls: ParsedCall[] = [];
  const spans: Span[] = [];
  let from = 0;
  // The first wrapper since the last call that held no call itself: the opening of nested wrappers
  // (`<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke …>`).
  let opening: number | undefined;
  for (let seen = 0; seen < MAX_SITES && calls.length < MAX_TEXT_CALLS; seen++) {
    const site = next(from);
    if (!site) break;
    const read = readSite(text, site, ctx, budget);
    from = Math.max(site.bodyStart, read?.end ?? 0);
    const accepted = (read?.calls ?? []).map((c) => accept(c, ctx)).filter((c) => c !== undefined);
    if (!read || accepted.length === 0 || accepted.length < read.calls.length) {
      if (opening === undefined || !onlyMarkupBetween(text, opening, site.start)) opening = site.start;
      continue;
    }
    const start =
      opening !== undefined && onlyMarkupBetween(text, opening, site.start) ? opening : site.start;
    opening = undefined;
    if (!leadsIn(text, start) || isQuoted(start)) continue;
    calls.push(...accepted.slice(0, MAX_TEXT_CALLS - calls.length));
    spans.push({ start, end: closersEnd(text, read.end) });
    from = Math.max(from, spans.at(-1)!.end);
  }
  if (calls.length === 0) return wholeMessageCalls(text, ctx, budget);
  // functionary's `>>>all` opens its text channel: markup once its calls were read.
  if (spans.some((s) => text.startsWith(">>>", s.start))) {
    for (
      let at = text.indexOf(">>>all");
      at >= 0 && spans.length < MAX_SITES * 2;
      at = text.indexOf(">>>all", at + 6)
    ) {
      spans.push({ start: at, end: at + 6 });
    }
    spans.sort((a, b) => a.start - b.start);
  }
  return { calls, prose: proseOutside(text, spans) };
}

/** What is written at one site: the calls and where they end; undefined when nothing readable is. */
function readSite(
  text: string,
  site: CallSite,
  ctx: ToolFormatContext,
  budget: RepairBudget,
): { calls: Candidate[]; end: number } | undefined {
  let p = skipGap(text, site.bodyStart);
  if (site.name !== undefined) {
    const args = readArguments(text, p, site.name, site, ctx, budget);
    return (
      args && { calls: [{ name: site.name, arguments: args.value, complete: args.complete }], end: args.end }
    );
  }
  const c = text.charCodeAt(p);
  if (c === 123 /* { */ || c === 91 /* [ */) return readJsonCalls(text, p, ctx, budget);
  const nameEnd = runEnd(text, p, isQualifiedNameChar, 128);
  if (nameEnd === p) return undefined;
  const name = text.slice(p, nameEnd).replace(/:$/, "");
  if (!ctx.isToolName(name)) return undefined;
  if (text.charCodeAt(nameEnd) === 40 /* ( */) return readPythonCalls(text, p, ctx);
  p = skipGap(text, nameEnd);
  // `<function>name</function>` and then the JSON arguments (Gemma 3 and Qwen 3.6 on MLX servers).
  const closing = /^<\/[\w:.-]{1,48}>/.exec(text.slice(p, p + 52));
  if (closing) {
    const after = skipGap(text, p + closing[0].length);
    if (text.charCodeAt(after) === 123 /* { */) p = after;
  }
  const args = readArguments(text, p, name, site, ctx, budget);
  return args && { calls: [{ name, arguments: args.value, complete: args.complete }], end: args.end };
}

/** The arguments at `p`: a JSON object, XML-ish parameter tags, or none (`{}`) when neither starts there. */
function readArguments(
  text: string,
  p: number,
  name: string,
  site: CallSite,
  ctx: ToolFormatContext,
  budget: RepairBudget,
): { value: unknown; complete: boolean; end: number } | undefined {
  const c = text.charCodeAt(p);
  if (c === 123 /* { */) {
    const scan = scanJsonValue(text, p);
    if (!scan.complete) return { value: {}, complete: false, end: scan.end };
    const parsed = parseJsonWithin(text.slice(p, scan.end), budget);
    if (!parsed.ok) return undefined;
    const value = typeof parsed.value === "string" ? parseString(parsed.value, budget) : parsed.value;
    return { value, complete: true, end: scan.end };
  }
  if (c === 60 /* < */) {
    const params = readXmlParams(text, p, ctx.schemaOf(name));
    if (params) return { value: params.args, complete: params.complete, end: params.end };
  }
  // No arguments: a call only when a closing tag or token follows the name (`<x_call>name</x_call>`);
  // after a keyword (`Action: name` and then prose) the name is just mentioned.
  if (site.keyword || closersEnd(text, p) === p) return undefined;
  return { value: {}, complete: true, end: p };
}

/** Keyword-argument calls from `p`: one, or several a line (Olmo 3), each `name(k=v, …)`. */
function readPythonCalls(
  text: string,
  p: number,
  ctx: ToolFormatContext,
): { calls: Candidate[]; end: number } | undefined {
  const calls: Candidate[] = [];
  let end = p;
  while (calls.length < MAX_TEXT_CALLS) {
    const parsed = parsePythonCall(text, p);
    if (!parsed.ok || parsed.calls.length !== 1) break;
    const call = parsed.calls[0]!;
    if (call.rejected !== undefined) return undefined;
    calls.push({ name: call.name, arguments: call.arguments, complete: call.complete && parsed.closed });
    end = parsed.end;
    if (!parsed.closed) break;
    // Another call on a following line, of an offered tool.
    let q = end;
    while (q < text.length && (isSpace(text.charCodeAt(q)) || text[q] === "," || text[q] === ";")) q++;
    const nameEnd = runEnd(text, q, isQualifiedNameChar, 128);
    if (nameEnd === q || text.charCodeAt(nameEnd) !== 40 || !ctx.isToolName(text.slice(q, nameEnd))) break;
    p = q;
  }
  return calls.length > 0 ? { calls, end } : undefined;
}

/**
 * Past what models write between a wrapper or name and the arguments: blanks, `:`, a special token
 * (`<|role_sep|>`, `<｜tool▁sep｜>`), a code-fence opener, an `Action Input:` / `Arguments:` label.
 * Bounded: at most MAX_GAP characters of labels and tokens.
 */
function skipGap(text: string, from: number): number {
  let i = from;
  for (let rounds = 0; rounds < 6; rounds++) {
    const start = i;
    i = skipSpaces(text, i);
    if (text[i] === ":") i++;
    const token =
      /^(?:<\|[\w:.-]{1,40}\|>|<｜[^｜>]{1,40}｜>|```[a-z]*|(?:action[ _]input|arguments|args|parameters|input)[ \t]*:|✿ARGS✿[ \t]*:)/i.exec(
        text.slice(i, i + MAX_GAP),
      );
    if (token) i += token[0].length;
    if (i === start) break;
  }
  return skipFenceOpener(text, i);
}

/** Past the closing tags, tokens and fence written right after a call (`</x>`, `<|END_ACTION|>`, ```). */
function closersEnd(text: string, from: number): number {
  let end = from;
  for (let rounds = 0; rounds < 4; rounds++) {
    const i = skipSpaces(text, end);
    const m = /^(?:<\/[\w:.-]{1,48}>|<\|[\w:./-]{1,48}\|>|<｜[^｜>]{1,48}｜>|```|\[\/?[A-Z_]{2,24}\])/.exec(
      text.slice(i, i + 64),
    );
    if (!m || (m[0].startsWith("<|") && !/end|suffix|close|\//i.test(m[0]))) break;
    end = i + m[0].length;
  }
  return end;
}

/** Whether only tags, tokens, blanks and bare words (`function`) stand between two wrappers. */
function onlyMarkupBetween(text: string, from: number, to: number): boolean {
  if (to - from > 256) return false;
  let i = from;
  while (i < to) {
    const c = text[i]!;
    if (c === "<") {
      const tag = text.slice(i, to);
      const close = tag.indexOf(">");
      if (close < 0 || tag.lastIndexOf("<", close) !== 0) return false;
      i += close + 1;
    } else if (/[\s\w.-]/.test(c)) i++;
    else return false;
  }
  return true;
}
