import { jsonrepair } from "jsonrepair";

export type LenientParse = { ok: true; value: unknown; repaired: string[] } | { ok: false; error: string };

const FENCE = /^\s*```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)\n?\s*```\s*$/;

/**
 * Parses what models write as JSON: code fences, comments, trailing commas, single quotes, Python
 * literals (True/False/None), and JSON encoded twice as a string. Says which repairs it made.
 * An empty or blank string is an empty object (tools without parameters).
 */
export function parseLenientJson(text: string): LenientParse {
  const repaired: string[] = [];
  let src = text;
  if (src.trim() === "") return { ok: true, value: {}, repaired: ["empty_arguments"] };

  const fence = FENCE.exec(src);
  if (fence) {
    src = fence[1] ?? "";
    repaired.push("code_fence");
  }

  let value: unknown;
  try {
    value = JSON.parse(src);
  } catch {
    try {
      value = JSON.parse(jsonrepair(pythonLiterals(src)));
      repaired.push("json_repair");
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }

  // Double-encoded: "{\"title\": …}" — unwrap up to twice.
  for (let i = 0; i < 2 && typeof value === "string"; i++) {
    const inner = value.trim();
    if (!(inner.startsWith("{") || inner.startsWith("["))) break;
    const again = parseLenientJson(inner);
    if (!again.ok) break;
    value = again.value;
    repaired.push("double_encoded", ...again.repaired);
  }
  return { ok: true, value, repaired };
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
    const word = /^(True|False|None)\b/.exec(src.slice(i, i + 6));
    if (word && !/[A-Za-z0-9_]/.test(src[i - 1] ?? "")) {
      out += word[1] === "True" ? "true" : word[1] === "False" ? "false" : "null";
      i += word[1]!.length - 1;
      continue;
    }
    out += ch;
  }
  return out;
}
