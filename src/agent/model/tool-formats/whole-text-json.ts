import { parseLenientJson, stripCodeFence } from "../../../core/lenient-json.ts";
import { isRecord, scanJsonValue } from "./json-calls.ts";
import { skipFenceOpener } from "./scan-text.ts";

/**
 * The JSON a whole message is, for the formats without a marker of their own: the trimmed text, or
 * the body of the one code fence it is (an unclosed fence too: a cut-off reply). Undefined when that
 * does not start with `{` or `[`. `fenced` says whether a fence was taken off.
 */
export function wholeTextJson(text: string): { json: string; fenced: boolean } | undefined {
  const t = text.trim();
  let json = stripCodeFence(t);
  const fenced = json !== undefined || t.startsWith("```");
  if (json === undefined) json = t.slice(skipFenceOpener(t, 0)).trim();
  const c = json.charCodeAt(0);
  return c === 123 || c === 91 ? { json, fenced } : undefined;
}

/**
 * The object a whole message is (see wholeTextJson), parsed leniently, and whether its brackets
 * closed. A cut-off object is repaired only to learn what it was: whatever it yields stays incomplete.
 */
export function wholeTextObject(
  text: string,
): { value: Record<string, unknown>; complete: boolean } | undefined {
  const json = wholeTextJson(text)?.json;
  if (json === undefined || !json.startsWith("{")) return undefined;
  const scan = scanJsonValue(json, 0);
  if (scan.complete && json.slice(scan.end).trim() !== "") return undefined;
  const parsed = parseLenientJson(json.slice(0, scan.end));
  if (!parsed.ok || !isRecord(parsed.value)) return undefined;
  return { value: parsed.value, complete: scan.complete };
}
