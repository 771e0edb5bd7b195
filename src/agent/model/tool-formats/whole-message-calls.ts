import { accept, type Candidate, readJsonCalls } from "./call-candidates.ts";
import { scanJsonValue } from "./json-calls.ts";
import { isQualifiedNameChar, runEnd } from "./name-chars.ts";
import { parseJsonWithin, type RepairBudget } from "./repair-budget.ts";
import { skipSpaces } from "./scan-text.ts";
import type { FormatMatch, ParsedCall, ToolFormatContext } from "./types.ts";
import { wholeTextJson } from "./whole-text-json.ts";

/**
 * The schema-guided reader's last shape: a message that is nothing but its call(s), with no call-like
 * markup at all: JSON (bare, or the one fence the message is) under any of the name and argument keys
 * of call-candidates.ts (LangChain's
 * `{"action": "x", "action_input": {…}}`, `{"function": "x", "parameters": {…}}`), or GLM-4's name
 * on a line of its own followed by the JSON arguments. Every call must be an offered tool whose
 * arguments fit, or none is taken.
 */
export function wholeMessageCalls(
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
