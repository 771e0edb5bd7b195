import { MAX_TEXT_CALLS, type ParsedCall } from "./types.ts";

/** True at a position where a marker outside any JSON string ends the JSON (see scanJsonValue). */
export type StopAt = (at: number) => boolean;

/**
 * Where the JSON value that starts at `start` (a `{` or `[`) ends, skipping brackets inside strings
 * (double- or single-quoted, as models write both). `end` is the index after the closing bracket;
 * when the text ends first, `complete` is false and `end` is the text's length. With `stop`, a marker
 * written outside every string ends the value there, unclosed (`end` is the marker's index): the
 * model closed its tag while the JSON was still open. A marker inside a string is text, never a
 * marker. Linear, no recursion.
 */
export function scanJsonValue(
  text: string,
  start: number,
  stop?: StopAt,
): { end: number; complete: boolean } {
  let depth = 0;
  let quote = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 92 /* \ */) i++;
      else if (c === quote) quote = 0;
      continue;
    }
    if (i > start && stop?.(i)) return { end: i, complete: false };
    if (c === 34 /* " */ || c === 39 /* ' */) quote = c;
    else if (c === 91 /* [ */ || c === 123 /* { */) depth++;
    else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
      if (depth <= 0) return { end: i + 1, complete: true };
    }
  }
  return { end: text.length, complete: false };
}

/**
 * A StopAt for markers (spellings of the tags or tokens around calls): true where one starts. Only
 * positions holding a marker's first character are compared, so a scan stays one pass.
 */
export function stopAtMarkers(text: string, markers: readonly string[]): StopAt {
  const firsts = new Set(markers.map((m) => m.charCodeAt(0)));
  return (at) => firsts.has(text.charCodeAt(at)) && markers.some((m) => text.startsWith(m, at));
}

/** True when the text (trimmed) is one JSON object or array whose brackets all close. */
export function jsonCloses(text: string): boolean {
  const t = text.trim();
  if (t === "") return true;
  const first = t.charCodeAt(0);
  if (first !== 123 && first !== 91) return true; // not bracketed: nothing to close
  const { end, complete } = scanJsonValue(t, 0);
  return complete && t.slice(end).trim() === "";
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export interface CallShape {
  /** Only objects that name their arguments (`parameters` / `arguments`) are calls (Llama 3's bare form). */
  requireArguments?: boolean;
}

/**
 * A call from one parsed JSON object in any of the shapes models write: `{name, arguments}`,
 * `{name, parameters}`, `{name, args}`, `{function: {name, arguments}}`, `{type: "function", function…}`.
 * Undefined when it has no usable name (or, with `requireArguments`, no arguments key).
 */
export function callFromObject(
  value: unknown,
  complete = true,
  shape: CallShape = {},
): ParsedCall | undefined {
  if (!isRecord(value)) return undefined;
  const fn = isRecord(value.function) ? value.function : value;
  const name = fn.name;
  if (typeof name !== "string" || name.trim() === "") return undefined;
  if (shape.requireArguments && !("parameters" in fn) && !("arguments" in fn)) return undefined;
  const args = fn.arguments ?? fn.parameters ?? fn.args ?? fn.input ?? {};
  if (typeof args === "string") return { name: name.trim(), arguments: args, complete };
  if (!isRecord(args)) return undefined;
  return { name: name.trim(), arguments: args, complete };
}

/** Calls from a parsed value: one call object or a list of them; undefined when any element is no call. */
export function callsFromJsonValue(value: unknown, complete = true): ParsedCall[] | undefined {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0 || items.length > MAX_TEXT_CALLS) return undefined;
  const calls: ParsedCall[] = [];
  for (const item of items) {
    const call = callFromObject(item, complete);
    if (!call) return undefined;
    calls.push(call);
  }
  return calls;
}
