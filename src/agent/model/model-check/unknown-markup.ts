import { escapeRegExp } from "../../../core/escape-regexp.ts";
/** How much of a reply the report shows. */
export const SAMPLE_MAX = 300;

/**
 * Shapes that show a model writing a call in some syntax, checked on a reply no reader claimed:
 * a tag named like a call (`<xyz_call>`, `<function_invoke …>`), a control token (`<|…|>`, `<｜…｜>`),
 * a bracketed all-caps token (`[TOOL_CALLS]`), a ReAct `Action:` line, a JSON object that starts
 * with a name key, or a line that starts with an offered tool's name and a bracket.
 */
const SHAPES: RegExp[] = [
  /<\/?[A-Za-z][\w:.-]*(?:call|tool|func|invoke|action)[\w:.-]*(?:\s[^<>]{0,80})?>/i,
  /<\/?(?:call|tool|func|invoke|action)[\w:.-]*(?:\s[^<>]{0,80})?>/i,
  /<\|[^|<>\s]{1,40}\|>|<｜[^｜<>]{1,40}｜>/,
  /\[[A-Z][A-Z_]{2,30}\]/,
  /^[ \t]*Action(?: Input)?:/m,
  /\{\s*"(?:name|function|tool|tool_name|action)"\s*:/,
];

/**
 * The marker of call-like markup in `text` (the first shape found, at most 40 characters), or
 * undefined when the text reads as prose. `toolNames` adds `name(` / `name{` at a line start.
 */
export function callLikeMarker(text: string, toolNames: readonly string[] = []): string | undefined {
  const head = text.slice(0, 20_000);
  let best: { at: number; marker: string } | undefined;
  for (const shape of SHAPES) {
    const m = shape.exec(head);
    if (m && (!best || m.index < best.at)) best = { at: m.index, marker: m[0].trim() };
  }
  for (const name of toolNames) {
    const m = new RegExp(`^[ \\t]*${escapeRegExp(name)}[ \\t]*[({]`, "m").exec(head);
    if (m && (!best || m.index < best.at)) best = { at: m.index, marker: m[0].trim() };
  }
  if (!best) return undefined;
  return best.marker.length > 40 ? `${best.marker.slice(0, 39)}…` : best.marker;
}

/**
 * The reply as the report shows it: on one line (line breaks as `\n`, other control characters
 * as `\uXXXX`), cut with "…" at `max`. Escaping for Slack is the renderer's job.
 */
export function rawSample(text: string, max = SAMPLE_MAX): string {
  const visible = text
    .trim()
    .slice(0, max * 2)
    .replace(/\r?\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return visible.length > max ? `${visible.slice(0, max - 1)}…` : visible;
}
