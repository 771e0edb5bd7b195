import { jsonrepair } from "jsonrepair";
import { MAX_ARGUMENT_CHARS, MAX_JSON_DEPTH, textNestingDepth } from "./json-limits.ts";

export type LenientParse = { ok: true; value: unknown; repaired: string[] } | { ok: false; error: string };

/**
 * Longest text handed to `jsonrepair`. Valid JSON of any size up to MAX_ARGUMENT_CHARS parses
 * strictly in linear time; repair is kept to short text because jsonrepair's backtracking on runs of
 * quotes grows quadratically (256 KB of `"` takes a minute; 8 KB takes milliseconds).
 */
export const MAX_REPAIR_CHARS = 8 * 1024;

/**
 * Parses what models write as JSON: code fences, comments, trailing commas, single quotes, Python
 * literals (True/False/None), and JSON encoded twice as a string. Says which repairs it made.
 * An empty or blank string is an empty object (tools without parameters). Linear in the input: text
 * over MAX_ARGUMENT_CHARS or nested deeper than MAX_JSON_DEPTH is refused before any parsing.
 */
export function parseLenientJson(text: string): LenientParse {
  return parseLevel(text, 0);
}

function parseLevel(text: string, unwrapped: number): LenientParse {
  if (text.length > MAX_ARGUMENT_CHARS) {
    return {
      ok: false,
      error: `the arguments are ${text.length} characters long; at most ${MAX_ARGUMENT_CHARS} are accepted`,
    };
  }
  const repaired: string[] = [];
  let src = text;
  if (src.trim() === "") return { ok: true, value: {}, repaired: ["empty_arguments"] };

  const fenced = stripCodeFence(src);
  if (fenced !== undefined) {
    src = fenced;
    repaired.push("code_fence");
  }
  if (textNestingDepth(src) > MAX_JSON_DEPTH) {
    return { ok: false, error: `the arguments nest deeper than ${MAX_JSON_DEPTH} levels` };
  }

  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch (strictError) {
    if (src.length > MAX_REPAIR_CHARS) {
      return {
        ok: false,
        error: `${errorText(strictError)}; text over ${MAX_REPAIR_CHARS} characters is not repaired`,
      };
    }
    try {
      value = JSON.parse(jsonrepair(pythonLiterals(src)));
      repaired.push("json_repair");
    } catch (err) {
      return { ok: false, error: errorText(err) };
    }
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

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** True/False/None outside of strings → JSON literals (jsonrepair knows them too; this keeps it explicit). */
function pythonLiterals(src: string): string {
  let out = "";
  let quote: string | null = null;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quote) {
      out += ch;
      if (ch === "\\") {
        out += src[i + 1] ?? "";
        i++;
      } else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      out += ch;
      continue;
    }
    if (ch === "T" || ch === "F" || ch === "N") {
      const word = /^(True|False|None)\b/.exec(src.slice(i, i + 6));
      if (word && !/[A-Za-z0-9_]/.test(src[i - 1] ?? "")) {
        out += word[1] === "True" ? "true" : word[1] === "False" ? "false" : "null";
        i += word[1]!.length - 1;
        continue;
      }
    }
    out += ch;
  }
  return out;
}
