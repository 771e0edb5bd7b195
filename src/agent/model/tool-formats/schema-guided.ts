import { bareToolName, toolNameKey } from "../../../tools/tool-names.ts";
import { blockquoteRegions, codeRegions, introducedAsExample, type Region } from "../code-regions.ts";
import { type CallSite, callSiteFinder } from "./call-sites.ts";
import { isRecord, scanJsonValue } from "./json-calls.ts";
import { leadsIn } from "./leads-in.ts";
import { isQualifiedNameChar, runEnd } from "./name-chars.ts";
import { proseOutside, type Span } from "./prose.ts";
import { parsePythonCall } from "./python-literal.ts";
import { parseJsonWithin, type RepairBudget, repairBudget } from "./repair-budget.ts";
import { isSpace, skipFenceOpener, skipSpaces } from "./scan-text.ts";
import { fitsSchema } from "./schema-fit.ts";
import type { FormatMatch, ParsedCall, ToolFormat, ToolFormatContext } from "./types.ts";
import { MAX_TEXT_CALLS } from "./types.ts";
import { wholeTextJson } from "./whole-text-json.ts";
import { readXmlParams } from "./xml-params.ts";

/** Call sites examined per message; past this many the rest stays text. */
const MAX_SITES = 64;
/** Longest gap read between a name and its arguments (`\nAction Input: `, a token). */
const MAX_GAP = 64;

/** Keys servers and models wrap arguments in: taken off when the inner object fits and the outer does not. */
const WRAPPER_KEYS = new Set(["arguments", "parameters", "args", "input", "params", "kwargs", "function"]);
const NAME_KEYS = ["name", "tool_name", "function_name", "tool", "action", "recipient_name"] as const;
const ARGUMENT_KEYS = [
  "arguments",
  "parameters",
  "args",
  "input",
  "params",
  "action_input",
  "tool_input",
  "tool_args",
  "tool_arguments",
  "function_arguments",
  "function_parameters",
  "kwargs",
] as const;

/** The name of a call cut off before its JSON closed, under any of the name keys. */
const CUT_NAME = new RegExp(`"(?:${NAME_KEYS.join("|")})"\\s*:\\s*"([^"]{1,128})"`);

/** One call as read at a site, before its name and arguments are checked against the tools. */
interface Candidate {
  name: string;
  arguments: unknown;
  complete: boolean;
}

/**
 * The last reader: a call in markup no family reader knows (`<xyz_tool_call>{…}`, Cohere's
 * `<|START_ACTION|>[…]`, `Action: x` + `Action Input: {…}`, functionary's `>>>x\n{…}`, Olmo's
 * `<function_calls>x(k=1)`, Step's `<steptml:invoke name="x"><steptml:parameter name="k">`,
 * Apertus' `[{"x": {…}}]`, Cline's `<x>\n<k>v</k>\n</x>`), read with the value readers the families use (JSON call objects,
 * XML-ish parameter tags typed from the schema, Python keyword arguments), and kept only when
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

/**
 * A message that is nothing but its call(s), with no markup at all: JSON (bare, or the one fence the
 * message is) under any of the name and argument keys above (LangChain's
 * `{"action": "x", "action_input": {…}}`, `{"function": "x", "parameters": {…}}`), or GLM-4's name
 * on a line of its own followed by the JSON arguments. Every call must be an offered tool whose
 * arguments fit, or none is taken.
 */
function wholeMessageCalls(
  written: string,
  ctx: ToolFormatContext,
  budget: RepairBudget,
): FormatMatch | undefined {
  if (!mayBeWholeCall(written)) return undefined;
  const text = unwrapMarkup(written);
  const whole = wholeTextJson(text);
  let read: { calls: Candidate[]; end: number } | undefined;
  let body: string;
  if (whole) {
    body = whole.json;
    read = readJsonCalls(body, 0, ctx, budget);
  } else {
    const t = text.trim();
    const lineEnd = t.indexOf("\n");
    const name = lineEnd > 0 ? t.slice(0, lineEnd).trim() : "";
    if (!name || !ctx.isToolName(name)) return undefined;
    body = t.slice(lineEnd + 1).trimStart();
    if (body.charCodeAt(0) !== 123 /* { */) return undefined;
    const scan = scanJsonValue(body, 0);
    const parsed = scan.complete ? parseJsonWithin(body.slice(0, scan.end), budget) : undefined;
    if (parsed && !parsed.ok) return undefined;
    read = {
      calls: [{ name, arguments: parsed?.value ?? {}, complete: scan.complete }],
      end: scan.end,
    };
  }
  if (!read || read.calls.length === 0 || body.slice(read.end).trim() !== "") return undefined;
  const calls: ParsedCall[] = [];
  for (const c of read.calls) {
    const call = accept(c, ctx);
    if (!call) return undefined;
    calls.push(call);
  }
  return { calls, prose: "" };
}

/**
 * Whether a message could be nothing but a call: it starts with JSON, markup or a fence, or its first
 * line is a bare name and the next one opens JSON. Prose is turned away here, at the cost of a few
 * character reads.
 */
function mayBeWholeCall(text: string): boolean {
  const start = skipSpaces(text, 0);
  const c = text.charCodeAt(start);
  if (c === 123 /* { */ || c === 91 /* [ */ || c === 60 /* < */ || text.startsWith("```", start)) return true;
  const lineEnd = text.indexOf("\n", start);
  if (lineEnd < 0 || lineEnd - start > 128) return false;
  const nameEnd = runEnd(text, start, isQualifiedNameChar, 128);
  return (
    nameEnd > start &&
    text.slice(nameEnd, lineEnd).trim() === "" &&
    text.charCodeAt(skipSpaces(text, lineEnd)) === 123 /* { */
  );
}

/** Wrapping tags no reader knows, taken off a whole message: `<?xml …?>`, then up to three pairs. */
const XML_DECLARATION = /^<\?xml[^>]{0,200}\?>\s*/;
const WRAPPING_TAG = /^<([A-Za-z][\w:.-]{0,47})>([\s\S]*)<\/\1>$/;

/**
 * The message without the markup wrapped around all of it (`<?xml version="1.0"?><json>{…}</json>`,
 * `<response><tools>{…}</tools></response>`, as Qwen2 writes on MLX servers): what is left must still
 * be the call and nothing else.
 */
function unwrapMarkup(text: string): string {
  let t = text.trim().replace(XML_DECLARATION, "");
  for (let round = 0; round < 3; round++) {
    const m = WRAPPING_TAG.exec(t);
    if (!m) break;
    t = m[2]!.trim();
  }
  return t;
}

/** A candidate as a call: its name offered, its arguments fitting the schema (unwrapped if need be). */
function accept(c: Candidate, ctx: ToolFormatContext): ParsedCall | undefined {
  if (!ctx.isToolName(c.name)) return undefined;
  // A call cut off mid-arguments is never executed: it is kept only to know the model meant a call.
  if (!c.complete)
    return { name: c.name, arguments: isRecord(c.arguments) ? c.arguments : {}, complete: false };
  const schema = ctx.schemaOf(c.name);
  if (echoesSchema(c.arguments, schema)) return undefined;
  const args = fittingArguments(c.arguments, schema, c.name);
  return args && { name: c.name, arguments: args, complete: true };
}

/**
 * Arguments that are a JSON Schema (`{"type": "object", "properties": {…}}`): the tool's definition
 * repeated back (the tool list of the prompt), not a call, unless the tool itself takes such keys.
 */
function echoesSchema(args: unknown, schema: unknown): boolean {
  if (!isRecord(args) || args.type !== "object" || !isRecord(args.properties)) return false;
  const declared = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  return !Object.hasOwn(declared, "properties");
}

/**
 * The arguments when they fit the schema, or, when they do not, the object a wrapper holds if that
 * fits: a single wrapper key (`{"arguments": {…}}`, `{"parameters": {…}}`, `{"function": {…}}`) or
 * the whole call envelope repeated inside (`{"name": "x", "arguments": {…}}`, for the same tool).
 */
export function fittingArguments(
  args: unknown,
  schema: unknown,
  name?: string,
): Record<string, unknown> | undefined {
  if (isRecord(args) && fitsSchema(args, schema)) return args;
  if (!isRecord(args)) return undefined;
  const keys = Object.keys(args);
  let inner: unknown;
  if (keys.length === 1 && WRAPPER_KEYS.has(keys[0]!)) {
    inner = args[keys[0]!];
    if (keys[0] === "function" && isRecord(inner)) inner = inner.arguments ?? inner.parameters;
  } else if (keys.length === 2 && name !== undefined && sameTool(args.name, name)) {
    inner = args.arguments ?? args.parameters;
  }
  return isRecord(inner) && fitsSchema(inner, schema) ? inner : undefined;
}

function sameTool(written: unknown, name: string): boolean {
  return (
    typeof written === "string" && toolNameKey(bareToolName(written)) === toolNameKey(bareToolName(name))
  );
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

/** JSON call objects at `p` (one, or a list), in any of the shapes servers and models write. */
function readJsonCalls(
  text: string,
  p: number,
  ctx: ToolFormatContext,
  budget: RepairBudget,
): { calls: Candidate[]; end: number } | undefined {
  const scan = scanJsonValue(text, p);
  if (!scan.complete) {
    // Cut off: a call only if its name can be read; never executed.
    const name = CUT_NAME.exec(text.slice(p, p + 512))?.[1];
    return name && ctx.isToolName(name)
      ? { calls: [{ name, arguments: {}, complete: false }], end: scan.end }
      : undefined;
  }
  const parsed = parseJsonWithin(text.slice(p, scan.end), budget);
  if (!parsed.ok) return { calls: [], end: scan.end };
  const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  if (items.length === 0 || items.length > MAX_TEXT_CALLS) return { calls: [], end: scan.end };
  const calls: Candidate[] = [];
  for (const item of items) {
    const call = callOfObject(item, ctx, budget);
    if (!call) return { calls: [], end: scan.end };
    calls.push(call);
  }
  return { calls, end: scan.end };
}

/** `{name|tool_name|…, arguments|parameters|…}`, `{function: {…}}`, or Apertus' `{"tool": {…}}`. */
function callOfObject(item: unknown, ctx: ToolFormatContext, budget: RepairBudget): Candidate | undefined {
  if (!isRecord(item)) return undefined;
  const fn = isRecord(item.function) ? item.function : item;
  let name: unknown = NAME_KEYS.map((k) => fn[k]).find((v) => typeof v === "string");
  if (name === undefined && typeof item.function === "string") name = item.function;
  if (typeof name === "string") {
    const key = ARGUMENT_KEYS.find((k) => k in fn);
    const raw = key === undefined ? {} : fn[key];
    const args = typeof raw === "string" ? parseString(raw, budget) : raw;
    return { name: name.trim(), arguments: args, complete: true };
  }
  const keys = Object.keys(item);
  if (keys.length === 1 && ctx.isToolName(keys[0]!) && isRecord(item[keys[0]!])) {
    return { name: keys[0]!, arguments: item[keys[0]!], complete: true };
  }
  return undefined;
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

/** A JSON string that itself holds the arguments (`"arguments": "{\"k\": 1}"`), parsed when it does. */
function parseString(raw: string, budget: RepairBudget): unknown {
  const t = raw.trim();
  if (!t.startsWith("{")) return raw;
  const parsed = parseJsonWithin(t, budget);
  return parsed.ok ? parsed.value : raw;
}
