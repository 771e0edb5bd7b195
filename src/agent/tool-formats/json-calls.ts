import { parseLenientJson } from "../lenient-json.ts";
import { MAX_TEXT_CALLS, type ParsedCall } from "./types.ts";

/**
 * Where the JSON value that starts at `start` (a `{` or `[`) ends, skipping brackets inside strings
 * (double- or single-quoted, as models write both). `end` is the index after the closing bracket;
 * when the text ends first, `complete` is false and `end` is the text's length. Linear, no recursion.
 */
export function scanJsonValue(text: string, start: number): { end: number; complete: boolean } {
  let depth = 0;
  let quote = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote !== 0) {
      if (c === 92 /* \ */) i++;
      else if (c === quote) quote = 0;
      continue;
    }
    if (c === 34 /* " */ || c === 39 /* ' */) quote = c;
    else if (c === 91 /* [ */ || c === 123 /* { */) depth++;
    else if (c === 93 /* ] */ || c === 125 /* } */) {
      depth--;
      if (depth <= 0) return { end: i + 1, complete: true };
    }
  }
  return { end: text.length, complete: false };
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

/**
 * A call from one parsed JSON object in any of the shapes models write: `{name, arguments}`,
 * `{name, parameters}`, `{name, args}`, `{function: {name, arguments}}`, `{type: "function", function…}`.
 * Undefined when it has no usable name.
 */
export function callFromObject(value: unknown, complete = true): ParsedCall | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const obj = value as Record<string, unknown>;
  const fn =
    typeof obj.function === "object" && obj.function !== null && !Array.isArray(obj.function)
      ? (obj.function as Record<string, unknown>)
      : obj;
  const name = fn.name;
  if (typeof name !== "string" || name.trim() === "") return undefined;
  const args = fn.arguments ?? fn.parameters ?? fn.args ?? fn.input ?? {};
  if (typeof args === "string") return { name: name.trim(), arguments: args, complete };
  if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
  return { name: name.trim(), arguments: args as Record<string, unknown>, complete };
}

/**
 * Calls from JSON text holding one call object or a list of them (leniently parsed). Undefined when
 * the text is not JSON or any element is not a call: then it was not a call list, and stays prose.
 */
export function callsFromJsonText(text: string, complete = true): ParsedCall[] | undefined {
  const parsed = parseLenientJson(text);
  if (!parsed.ok) return undefined;
  return callsFromJsonValue(parsed.value, complete);
}

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
