import { callFromObject, scanJsonValue } from "./json-calls.ts";
import { isSpace, skipFenceOpener, skipSpace } from "./marker-scan.ts";
import { parseJsonWithin, type RepairBudget } from "./repair-budget.ts";
import { MAX_TEXT_CALLS, type ParsedCall } from "./types.ts";

/**
 * The call in the JSON text of one call object. `complete` comes from scanning (did the brackets
 * close?), never from the parse: a cut-off object is still read, leniently, only to learn which tool
 * the model meant; it stays incomplete and is never executed. Undefined when it is no call.
 */
export function callFromJsonText(
  json: string,
  complete: boolean,
  budget: RepairBudget,
): ParsedCall | undefined {
  const parsed = parseJsonWithin(json, budget);
  if (parsed.ok) {
    const call = callFromObject(parsed.value, complete);
    if (call || complete) return call;
  }
  return complete ? undefined : partialCall(json);
}

/**
 * A cut-off call too long or too broken to repair: its name read by scanning for the `"name"` key,
 * its arguments the raw text after the arguments key. Undefined when the name itself was cut off.
 */
function partialCall(json: string): ParsedCall | undefined {
  const key = json.indexOf('"name"');
  if (key < 0) return undefined;
  let i = skipSpace(json, key + 6);
  if (json[i] !== ":") return undefined;
  i = skipSpace(json, i + 1);
  if (json[i] !== '"') return undefined;
  const start = i + 1;
  for (i = start; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34 /* " */) break;
  }
  if (i >= json.length) return undefined;
  const name = json.slice(start, i).trim();
  if (name === "") return undefined;
  let argsKey = json.indexOf('"arguments"');
  let keyLength = 11;
  if (argsKey < 0) {
    argsKey = json.indexOf('"parameters"');
    keyLength = 12;
  }
  let args = "";
  if (argsKey >= 0) {
    const colon = json.indexOf(":", argsKey + keyLength);
    if (colon >= 0) args = json.slice(colon + 1).trim();
  }
  return { name, arguments: args, complete: false };
}

export interface ScannedCalls {
  calls: ParsedCall[];
  /** Index just after the last value consumed (the start position when none was). */
  end: number;
}

export interface ScanOptions {
  /** Skip values that are not calls (MiniMax keeps going past a broken line) instead of stopping. */
  skipNonCalls?: boolean;
}

/**
 * The calls in the JSON values written one after another from `from`: objects (one call each) and
 * arrays of call objects, separated by blanks, commas, semicolons or code-fence lines. Stops at the
 * first text that is not such a value, at a value that does not close (that call is incomplete), or
 * at MAX_TEXT_CALLS. An array with an element that is not a call is not a call list: the scan stops
 * before it. Repairs draw on `budget`. Linear: each value is scanned once, each element parsed once.
 */
export function scanCallValues(
  src: string,
  from: number,
  budget: RepairBudget,
  options: ScanOptions = {},
): ScannedCalls {
  const calls: ParsedCall[] = [];
  let end = from;
  let i = from;
  while (calls.length < MAX_TEXT_CALLS) {
    i = skipSeparators(src, i);
    const c = src.charCodeAt(i);
    if (c === 123 /* { */) {
      const scan = scanJsonValue(src, i);
      const call = callFromJsonText(src.slice(i, scan.end), scan.complete, budget);
      if (call) calls.push(call);
      else if (!options.skipNonCalls) break;
      end = scan.end;
      i = scan.end;
      if (!scan.complete) break;
    } else if (c === 91 /* [ */) {
      const list = scanCallList(src, i, MAX_TEXT_CALLS - calls.length, budget, options);
      if (!list) {
        if (!options.skipNonCalls) break;
        const skipped = scanJsonValue(src, i);
        end = skipped.end;
        i = skipped.end;
        if (!skipped.complete) break;
        continue;
      }
      calls.push(...list.calls);
      end = list.end;
      i = list.end;
      if (!list.closed) break;
    } else break;
  }
  return { calls, end };
}

/** The calls of the array at `start`, or undefined when an element is not a call object. */
function scanCallList(
  src: string,
  start: number,
  room: number,
  budget: RepairBudget,
  options: ScanOptions,
): { calls: ParsedCall[]; end: number; closed: boolean } | undefined {
  const calls: ParsedCall[] = [];
  let i = start + 1;
  for (;;) {
    while (i < src.length && (isSpace(src.charCodeAt(i)) || src.charCodeAt(i) === 44)) i++;
    if (i >= src.length) return { calls, end: src.length, closed: false };
    const c = src.charCodeAt(i);
    if (c === 93 /* ] */) return { calls, end: i + 1, closed: true };
    if (c !== 123 /* { */) return undefined;
    const scan = scanJsonValue(src, i);
    const call = callFromJsonText(src.slice(i, scan.end), scan.complete, budget);
    if (!call && !options.skipNonCalls) return undefined;
    if (call && calls.length < room) calls.push(call);
    if (!scan.complete) return { calls, end: scan.end, closed: false };
    i = scan.end;
  }
}

/** Past blanks, `,` and `;` between values, and code-fence lines (```json) around them. */
function skipSeparators(src: string, from: number): number {
  let i = from;
  while (i < src.length) {
    const c = src.charCodeAt(i);
    if (isSpace(c) || c === 44 /* , */ || c === 59 /* ; */) i++;
    else if (src.startsWith("```", i)) i = skipFenceOpener(src, i);
    else break;
  }
  return i;
}

/**
 * Where the JSON value at `i` ends (`i` itself when no `{`/`[` starts there): a format that found no
 * call after a marker resumes its search past that value, so no text is scanned twice.
 */
export function valueEnd(src: string, i: number): number {
  const c = src.charCodeAt(i);
  return c === 123 || c === 91 ? scanJsonValue(src, i).end : i;
}

/**
 * The arguments written in a region between special tokens (after a separator, up to the call's end
 * token or whatever comes next): the JSON value there, possibly fenced (```json), as raw text. Its
 * call is complete when the region was closed by the call's own end token, or when the JSON closes.
 * `rest` is what follows the JSON in the region (without a fence closer): prose.
 */
export function argumentsIn(
  region: string,
  closed: boolean,
): { args: string; complete: boolean; rest: string } {
  const a = skipSpace(region, skipFenceOpener(region, skipSpace(region, 0)));
  const c = region.charCodeAt(a);
  if (c !== 123 && c !== 91) {
    const args = region.slice(a).trim();
    return { args, complete: closed, rest: "" };
  }
  const scan = scanJsonValue(region, a);
  let rest = region.slice(scan.end).trim();
  if (rest.startsWith("```")) rest = rest.slice(3);
  return { args: region.slice(a, scan.end), complete: closed || scan.complete, rest };
}
