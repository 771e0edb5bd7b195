import { jsonrepair } from "jsonrepair";
import { MAX_ARGUMENT_CHARS, MAX_JSON_DEPTH, textNestingDepth, tooLongError } from "./json-limits.ts";

export type LenientParse = { ok: true; value: unknown; repaired: string[] } | { ok: false; error: string };

/**
 * Longest text handed to `jsonrepair`. Valid JSON of any size up to MAX_ARGUMENT_CHARS parses
 * strictly in linear time; repair is kept to short text because jsonrepair's backtracking on runs of
 * quotes grows quadratically (256 KB of `"` takes a minute; 8 KB takes milliseconds).
 */
export const MAX_REPAIR_CHARS = 8 * 1024;

/**
 * Parses what models write as JSON: code fences, comments, trailing commas, single quotes, Python
 * literals (True/False/None), and JSON encoded twice as a string; the repairs are jsonrepair's, on
 * text up to MAX_REPAIR_CHARS (longer text is parsed strictly, a code fence taken off). Says which
 * repairs it made.
 * An empty or blank string is an empty object (tools without parameters). Linear in the input: text
 * over MAX_ARGUMENT_CHARS or nested deeper than MAX_JSON_DEPTH is refused before any parsing.
 */
export function parseLenientJson(text: string): LenientParse {
  return parseLevel(text, 0);
}

function parseLevel(text: string, unwrapped: number): LenientParse {
  if (text.length > MAX_ARGUMENT_CHARS) {
    return { ok: false, error: tooLongError(text.length) };
  }
  const repaired: string[] = [];
  if (text.trim() === "") return { ok: true, value: {}, repaired: ["empty_arguments"] };
  if (textNestingDepth(text) > MAX_JSON_DEPTH) {
    return { ok: false, error: `the arguments nest deeper than ${MAX_JSON_DEPTH} levels` };
  }

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (strictError) {
    const parsed = text.length <= MAX_REPAIR_CHARS ? repair(text) : unfence(text, strictError);
    if (!parsed.ok) return parsed;
    value = parsed.value;
    repaired.push(...parsed.repaired);
  }

  // Double-encoded: "{\"title\": …}" — unwrap up to twice.
  if (typeof value === "string" && unwrapped < 2) {
    const inner = value.trim();
    if (inner.startsWith("{") || inner.startsWith("[")) {
      const again = parseLevel(inner, unwrapped + 1);
      if (again.ok)
        return { ok: true, value: again.value, repaired: [...repaired, "double_encoded", ...again.repaired] };
    }
  }
  return { ok: true, value, repaired };
}

/**
 * The body of a text wrapped in one Markdown code fence (```json … ```), or undefined when it is not
 * fenced. Index arithmetic only: a regex with lazy groups and optional whitespace around the body
 * backtracks cubically on a fence followed by a long run of blanks.
 */
export function stripCodeFence(text: string): string | undefined {
  const start = text.trimStart();
  if (!start.startsWith("```")) return undefined;
  const end = start.trimEnd();
  if (end.length < 6 || !end.endsWith("```")) return undefined;
  // The opening fence's info string (a language tag) runs to the end of its line.
  let bodyStart = 3;
  while (bodyStart < end.length && isTagChar(end.charCodeAt(bodyStart))) bodyStart++;
  const bodyEnd = end.length - 3;
  if (bodyEnd < bodyStart) return undefined;
  return end.slice(bodyStart, bodyEnd).trim();
}

function isTagChar(c: number): boolean {
  return (
    (c >= 48 && c <= 57) ||
    (c >= 65 && c <= 90) ||
    (c >= 97 && c <= 122) ||
    c === 95 /* _ */ ||
    c === 45 /* - */
  );
}

/** Short text: jsonrepair (it also takes off a Markdown code fence and reads True/False/None). */
function repair(text: string): LenientParse {
  try {
    return { ok: true, value: JSON.parse(jsonrepair(text)), repaired: ["json_repair"] };
  } catch (err) {
    return { ok: false, error: errorText(err) };
  }
}

/**
 * Text too long for jsonrepair: only valid JSON in a code fence is accepted, the fence taken off by
 * index (what jsonrepair would have done, without its cost).
 */
function unfence(text: string, strictError: unknown): LenientParse {
  const refused: LenientParse = {
    ok: false,
    error: `${errorText(strictError)}; text over ${MAX_REPAIR_CHARS} characters is not repaired`,
  };
  const body = stripCodeFence(text);
  if (body === undefined) return refused;
  try {
    return { ok: true, value: JSON.parse(body), repaired: ["code_fence"] };
  } catch {
    return refused;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
