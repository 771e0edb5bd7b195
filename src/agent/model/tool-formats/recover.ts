import { escapeRegExp } from "../../../core/escape-regexp.ts";
import { bareToolName } from "../../../tools/tool-names.ts";
import { maskQuotedCode, restoreInValue } from "../code-regions.ts";
import { leadsIn } from "./leads-in.ts";
import type { ParsedCall, ToolFormat, ToolFormatContext } from "./types.ts";

export interface Recovered {
  /** Id of the format the calls were written in (undefined when none were found). */
  format?: string;
  calls: ParsedCall[];
  /** The text that is not a call: the assistant's prose. */
  prose: string;
  /**
   * The call marker found when no format could read the calls (e.g. "<tool_call>"): the model tried
   * to call a tool and its syntax was broken or unknown. Undefined when calls were recovered.
   */
  unrecovered?: string;
}

/** A format and the strings that start its calls (none: it only claims a whole message). */
export interface OrderedFormat {
  format: ToolFormat;
  markers: readonly string[];
}

/** What one pass over a text found: calls in one format, or only an answer a format unwrapped. */
type Pass =
  | { kind: "calls"; format: ToolFormat; calls: ParsedCall[]; prose: string; at: number }
  | { kind: "answer"; prose: string };

/** Passes after the first: the text left over may hold calls in another family's syntax. */
const MAX_MIXED_FORMATS = 4;

/**
 * Reads the calls written as text in one message.
 * - Text that quotes call syntax (code spans and fences, blockquotes, examples) is masked first:
 *   quoted is not called (see code-regions.ts).
 * - Of the formats whose `detect` fires, the one whose marker comes first in the text is tried first
 *   (list order breaks ties), so a call quoted inside another call's arguments never wins over the
 *   call that quotes it; formats without a marker start at the first character (they only claim a
 *   whole message). The first that yields calls wins; its remaining text is the prose.
 * - `fallback` (the schema-guided reader) is tried only when no format yields calls.
 * - The prose left over is read again by the formats not used yet: a message with call blocks in
 *   several syntaxes runs each, read by its own reader, ordered by where each format's calls start.
 * - When nothing yields calls but a call marker starts a line, the model tried to call a tool in a
 *   form nobody reads: `unrecovered` (the loop asks again instead of showing markup). A marker in the
 *   middle of a sentence is just a mention.
 */
export function recoverWith(
  formats: readonly OrderedFormat[],
  allMarkers: readonly string[],
  written: string,
  ctx: ToolFormatContext,
  fallback?: OrderedFormat & { firstAt(text: string): number },
): Recovered {
  const masked = maskQuotedCode(written, allMarkers);
  const text = masked.text;
  const first = readOnce(formats, text, ctx, fallback);
  if (first?.kind !== "calls") {
    if (first) return { calls: [], prose: masked.restore(first.prose) };
    const marker = markerStartingALine(text, allMarkers);
    return { calls: [], prose: written, ...(marker ? { unrecovered: marker } : {}) };
  }
  const groups = [{ at: first.at, format: first.format.id, calls: first.calls }];
  const used = new Set([first.format]);
  let prose = first.prose;
  for (let round = 1; round < MAX_MIXED_FORMATS && prose !== ""; round++) {
    const rest = formats.filter((f) => !used.has(f.format));
    const more = readOnce(rest, prose, ctx, fallback && !used.has(fallback.format) ? fallback : undefined);
    // Only whole calls count in what is left over: a cut-off piece of markup there is no call.
    if (more?.kind !== "calls" || more.calls.some((c) => !c.complete)) break;
    used.add(more.format);
    const own = formats.find((f) => f.format === more.format);
    const at = own
      ? firstMarker(text, own.markers, firstNonSpace(text))
      : (fallback?.firstAt(text) ?? text.length);
    groups.push({ at, format: more.format.id, calls: more.calls });
    prose = more.prose;
  }
  groups.sort((a, b) => a.at - b.at);
  const calls = groups.flatMap((g) => g.calls);
  return {
    format: groups.map((g) => g.format).join("+"),
    calls: masked.regions === 0 ? calls : calls.map((c) => restoreCall(c, masked.restore)),
    prose: masked.restore(prose),
  };
}

/** The first format (in marker order) that yields calls in `text`, else the fallback's calls. */
function readOnce(
  formats: readonly OrderedFormat[],
  text: string,
  ctx: ToolFormatContext,
  fallback: (OrderedFormat & { firstAt(text: string): number }) | undefined,
): Pass | undefined {
  const start = firstNonSpace(text);
  const candidates = formats
    .filter((f) => f.format.detect(text))
    .map((f, order) => ({ ...f, order, at: firstMarker(text, f.markers, start) }))
    .sort((a, b) => a.at - b.at || a.order - b.order);
  // A format may read the whole text as an answer with no call (llama.cpp's `{"response": "…"}`,
  // TGI's `notify_error`): that prose is the answer unless another format finds calls.
  let answerOnly: string | undefined;
  for (const { format, at } of candidates) {
    const match = format.parse(text, ctx);
    if (!match) continue;
    if (match.calls.length > 0) {
      // "Mistral writes [TOOL_CALLS]x[ARGS]{…}": a plain-text marker in the middle of a sentence is
      // quoted, not written as a call (models put calls at the start, or after a sentence or a tag).
      if (!leadsIn(text, at)) continue;
      // A "name" that is no name (`create_ticket(title=VPN`, a sentence) means the text only looked
      // like this format: it is not a call, whatever else reads it.
      if (!match.calls.every((c) => plausibleName(c.name))) continue;
      return { kind: "calls", format, calls: match.calls, prose: match.prose, at };
    }
    if (match.prose !== text.trim()) answerOnly ??= match.prose;
  }
  if (fallback?.format.detect(text)) {
    const match = fallback.format.parse(text, ctx);
    if (match && match.calls.length > 0 && match.calls.every((c) => plausibleName(c.name))) {
      return {
        kind: "calls",
        format: fallback.format,
        calls: match.calls,
        prose: match.prose,
        at: text.length,
      };
    }
  }
  return answerOnly === undefined ? undefined : { kind: "answer", prose: answerOnly };
}

function restoreCall(c: ParsedCall, restore: (s: string) => string): ParsedCall {
  return {
    ...c,
    arguments:
      typeof c.arguments === "string"
        ? restore(c.arguments)
        : (restoreInValue(c.arguments, restore) as Record<string, unknown>),
  };
}

/** Where the format's first marker is (its bare form, when it has none or none is present, starts the text). */
function firstMarker(text: string, markers: readonly string[], start: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (const m of markers) {
    const at = text.indexOf(m);
    if (at >= 0 && at < best) best = at;
  }
  return best === Number.POSITIVE_INFINITY ? start : best;
}

/** The first of `markers` that starts the text or a line (after blanks), if any. One linear scan. */
function markerStartingALine(text: string, markers: readonly string[]): string | undefined {
  let pattern = lineStartPatterns.get(markers);
  if (!pattern) {
    pattern = new RegExp(`(?:^|[\\n\\r])[ \\t]*(${markers.map(escapeRegExp).join("|")})`, "g");
    lineStartPatterns.set(markers, pattern);
  }
  // At one place the pattern takes the first marker of the list that matches there, so the
  // earliest listed marker that starts a line is always among those found.
  const found = new Set<string>();
  for (const m of text.matchAll(pattern)) {
    found.add(m[1]!);
    if (found.size === markers.length) break;
  }
  return markers.find((m) => found.has(m));
}
const lineStartPatterns = new WeakMap<readonly string[], RegExp>();

function firstNonSpace(text: string): number {
  const m = /\S/.exec(text);
  return m ? m.index : 0;
}

/** A tool name once its namespace, index and leaked tokens are cut: an identifier, at most 128 characters. */
function plausibleName(name: string): boolean {
  return /^[A-Za-z_][\w-]{0,127}$/.test(bareToolName(name));
}
