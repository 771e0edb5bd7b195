import { type CallShape, callFromObject, type StopAt, scanJsonValue } from "./json-calls.ts";
import { parseJsonWithin, type RepairBudget } from "./repair-budget.ts";
import { isSpace, skipFenceOpener, skipSpaces } from "./scan-text.ts";
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
  shape: CallShape = {},
): ParsedCall | undefined {
  const parsed = parseJsonWithin(json, budget);
  if (parsed.ok) {
    const call = callFromObject(parsed.value, complete, shape);
    if (call || complete) return call;
  }
  return complete ? undefined : partialCall(json, shape);
}

/**
 * A cut-off call too long or too broken to repair: its name read by scanning for the `"name"` key,
 * its arguments the raw text after the arguments key. Undefined when the name itself was cut off.
 */
function partialCall(json: string, shape: CallShape): ParsedCall | undefined {
  const key = json.indexOf('"name"');
  if (key < 0) return undefined;
  let i = skipSpaces(json, key + 6);
  if (json[i] !== ":") return undefined;
  i = skipSpaces(json, i + 1);
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
  if (argsKey < 0 && shape.requireArguments) return undefined;
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

export interface ScanOptions extends CallShape {
  /** Skip values that are not calls (MiniMax keeps going past a broken line) instead of stopping. */
  skipNonCalls?: boolean;
  /** The format's markers: one outside a JSON string ends the JSON there, unclosed (see scanJsonValue). */
  stop?: StopAt;
}

/**
 * The calls in the JSON values written one after another from `from`: objects (one call each) and
 * arrays of call objects, separated by blanks, commas, semicolons or code-fence lines. Stops at the
 * first text that is not such a value, at a value that does not close (that call is incomplete; so
 * is every call of a list that never closed), at a marker, or at MAX_TEXT_CALLS. An array with an
 * element that is not a call is not a call list: the scan stops before it. Repairs draw on `budget`.
 * Linear: each value is scanned once, each element parsed once.
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
    if (options.stop?.(i)) break;
    if (c === 123 /* { */) {
      const scan = scanJsonValue(src, i, options.stop);
      const call = callFromJsonText(src.slice(i, scan.end), scan.complete, budget, options);
      if (call) calls.push(call);
      else if (!options.skipNonCalls) break;
      end = scan.end;
      i = scan.end;
      if (!scan.complete) break;
    } else if (c === 91 /* [ */) {
      const list = scanCallList({ src, start: i, room: MAX_TEXT_CALLS - calls.length, budget, options });
      if (!list) {
        if (!options.skipNonCalls) break;
        const skipped = scanJsonValue(src, i, options.stop);
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

/**
 * The calls of the array at `start`, or undefined when an element is not a call object. A list that
 * never closed (cut off, or ended by a marker) holds no complete call: the model had not finished it.
 */
function scanCallList({
  src,
  start,
  room,
  budget,
  options,
}: {
  src: string;
  start: number;
  /** How many more calls may be taken. */
  room: number;
  budget: RepairBudget;
  options: ScanOptions;
}): { calls: ParsedCall[]; end: number; closed: boolean } | undefined {
  const calls: ParsedCall[] = [];
  const unclosed = (end: number) => ({
    calls: calls.map((c) => ({ ...c, complete: false })),
    end,
    closed: false,
  });
  let i = start + 1;
  for (;;) {
    while (i < src.length && (isSpace(src.charCodeAt(i)) || src.charCodeAt(i) === 44)) i++;
    if (i >= src.length || options.stop?.(i)) return unclosed(i);
    const c = src.charCodeAt(i);
    if (c === 93 /* ] */) return { calls, end: i + 1, closed: true };
    if (c !== 123 /* { */) return undefined;
    const scan = scanJsonValue(src, i, options.stop);
    const call = callFromJsonText(src.slice(i, scan.end), scan.complete, budget, options);
    if (!call && !options.skipNonCalls) return undefined;
    if (call && calls.length < room) calls.push(call);
    if (!scan.complete) return unclosed(scan.end);
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
export function valueEnd(src: string, i: number, stop?: StopAt): number {
  const c = src.charCodeAt(i);
  return c === 123 || c === 91 ? scanJsonValue(src, i, stop).end : i;
}
