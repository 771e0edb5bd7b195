import { scanJsonValue } from "./json-calls.ts";
import { runEnd } from "./name-chars.ts";
import { isNamePart, isNameStart } from "./python-scalars.ts";
import { parseJsonWithin, type RepairBudget } from "./repair-budget.ts";
import { skipSpaces } from "./scan-text.ts";
import type { ParsedCall } from "./types.ts";

/**
 * Llama 3.1's built-in tool syntax after `<|python_tag|>`: `brave_search.call(query="…")`,
 * `wolfram_alpha.call(query="…")` — a name, `.call(`, keyword arguments whose values are string,
 * number, boolean/None literals or JSON (read like llama.cpp does). Undefined when the text there is not
 * that shape (e.g. the raw Python of code_interpreter). A call whose `)` never came is incomplete.
 */
export function parseBuiltinCall(
  text: string,
  pos: number,
  budget: RepairBudget,
): { call: ParsedCall; end: number } | undefined {
  const nameEnd = identEnd(text, pos);
  if (nameEnd === pos) return undefined;
  const name = text.slice(pos, nameEnd);
  let i = skipSpaces(text, nameEnd);
  if (text[i] !== ".") return undefined;
  i = skipSpaces(text, i + 1);
  if (!text.startsWith("call", i)) return undefined;
  i = skipSpaces(text, i + 4);
  if (text[i] !== "(") return undefined;
  i++;
  const args: Record<string, unknown> = {};
  const cut = () => ({ call: { name, arguments: args, complete: false }, end: text.length });
  for (;;) {
    i = skipSpaces(text, i);
    if (i >= text.length) return cut();
    if (text[i] === ")") return { call: { name, arguments: args, complete: true }, end: i + 1 };
    const keyEnd = identEnd(text, i);
    if (keyEnd === i) return undefined;
    const key = text.slice(i, keyEnd);
    i = skipSpaces(text, keyEnd);
    if (i >= text.length) return cut();
    if (text[i] !== "=") return undefined;
    const value = readValue(text, skipSpaces(text, i + 1), budget);
    if (!value) return undefined;
    args[key] = value.value;
    if (!value.complete) return cut();
    i = skipSpaces(text, value.end);
    if (i >= text.length) return cut();
    if (text[i] === ",") i++;
    else if (text[i] !== ")") return undefined;
  }
}

function readValue(
  text: string,
  i: number,
  budget: RepairBudget,
): { value: unknown; end: number; complete: boolean } | undefined {
  const c = text[i];
  if (c === undefined) return { value: "", end: i, complete: false };
  if (c === '"' || c === "'") return readString(text, i, c);
  if (c === "{" || c === "[") {
    const scan = scanJsonValue(text, i);
    const json = text.slice(i, scan.end);
    if (!scan.complete) return { value: json, end: scan.end, complete: false };
    const parsed = parseJsonWithin(json, budget);
    return parsed.ok ? { value: parsed.value, end: scan.end, complete: true } : undefined;
  }
  let end = i;
  while (end < text.length && !",) \t\r\n".includes(text[end]!)) end++;
  const token = text.slice(i, end);
  if (end >= text.length) return { value: token, end, complete: false };
  if (token === "True" || token === "true") return { value: true, end, complete: true };
  if (token === "False" || token === "false") return { value: false, end, complete: true };
  if (token === "None" || token === "null") return { value: null, end, complete: true };
  if (token !== "" && Number.isFinite(Number(token))) return { value: Number(token), end, complete: true };
  return undefined;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r" };

function readString(
  text: string,
  start: number,
  quote: string,
): { value: string; end: number; complete: boolean } {
  const parts: string[] = [];
  let run = start + 1;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") {
      parts.push(text.slice(run, i));
      const next = text[i + 1] ?? "";
      parts.push(ESCAPES[next] ?? next);
      i++;
      run = i + 1;
    } else if (c === quote) {
      parts.push(text.slice(run, i));
      return { value: parts.join(""), end: i + 1, complete: true };
    }
  }
  parts.push(text.slice(run));
  return { value: parts.join(""), end: text.length, complete: false };
}

/** Where the Python identifier at `from` ends (`from` when none starts there). */
function identEnd(text: string, from: number): number {
  return from < text.length && isNameStart(text.charCodeAt(from)) ? runEnd(text, from + 1, isNamePart) : from;
}
