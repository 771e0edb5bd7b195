import { anyFinder, firstOf } from "./finders.ts";
import { scanCallValues, valueEnd } from "./json-call-scan.ts";
import { type StopAt, stopAtMarkers } from "./json-calls.ts";
import { proseOutside, type Span } from "./prose.ts";
import { type RepairBudget, repairBudget } from "./repair-budget.ts";
import { markerAt, skipFenceCloser, skipSpaces } from "./scan-text.ts";
import type { FormatMatch, ParsedCall, ToolFormat, ToolFormatContext } from "./types.ts";
import { MAX_TEXT_CALLS } from "./types.ts";

/** Markers examined per message; past this many the rest stays text (no model writes more). */
const MAX_MARKERS = 64;

/** The markers of a "marker, then JSON call(s)" format. */
export interface CallMarkers {
  /** What opens calls (`<tool_call>`, `[TOOL_CALLS]`, `functools`, several spellings or markers). */
  open: readonly string[];
  /** What closes a section (`</tool_call>`), none for formats without; it may be missing. */
  close: readonly string[];
}

/** Where one marker's calls are read: the text, and what a reader may need around it. */
export interface MarkerContext {
  /**
   * Where the section ends as the tags delimit it (its close tag, the next opening marker, or the
   * text's end): the bound for a body that is not JSON. A JSON body is scanned past it, to its own end.
   */
  limit: number;
  /** Ends a JSON value at one of the format's markers written outside its strings. */
  stop: StopAt;
  /** The message's repair budget. */
  budget: RepairBudget;
  /** The offered tools (formats that claim only offered names check them here). */
  ctx: ToolFormatContext;
}

/**
 * Reads the calls right after one marker (`pos` is just past it). Undefined or no calls: the marker
 * is followed by no call (it stays prose); "foreign": the text is another format's, the parse gives up.
 */
export type ReadAfterMarker = (
  text: string,
  pos: number,
  at: MarkerContext,
) => { calls: ParsedCall[]; end: number } | "foreign" | undefined;

/** The default reader: one or several JSON call values (objects or lists) right after the marker. */
export const readJsonCalls: ReadAfterMarker = (text, pos, at) =>
  scanCallValues(text, skipSpaces(text, pos), at.budget, { stop: at.stop });

/**
 * The calls of a format that writes a marker, then its calls as JSON (Hermes' `<tool_call>{…}`,
 * `[TOOL_CALLS][…]`, `functools[…]`, `<|python_tag|>{…}`, …), one or several markers, and the prose
 * around them. The JSON after a marker is scanned to its own end, string-aware: a close tag inside
 * one of its strings is text, and a call is complete only when its JSON closed. After the calls the
 * close tag, when the format has one, is expected (prose written before it stays prose); a missing
 * one does not make a closed JSON incomplete. Undefined when no marker was followed by a call.
 * Linear: cached finders, each JSON scanned once, at most MAX_MARKERS markers and MAX_TEXT_CALLS calls.
 */
export function parseMarkedCalls(
  text: string,
  ctx: ToolFormatContext,
  markers: CallMarkers,
  read: ReadAfterMarker,
): FormatMatch | undefined {
  const opens = anyFinder(text, markers.open);
  const closes = anyFinder(text, markers.close);
  const stop = stopAtMarkers(text, [...markers.open, ...markers.close]);
  const budget = repairBudget();
  const calls: ParsedCall[] = [];
  const spans: Span[] = [];
  let from = 0;
  for (let seen = 0; seen < MAX_MARKERS && calls.length < MAX_TEXT_CALLS; seen++) {
    const at = opens(from);
    if (at === -1) break;
    const bodyStart = at + markerAt(text, at, markers.open);
    const limit = firstOf(closes(bodyStart), opens(bodyStart));
    const bound = limit === -1 ? text.length : limit;
    const found = read(text, bodyStart, { limit: bound, stop, budget, ctx });
    if (found === "foreign") return undefined;
    if (!found || found.calls.length === 0) {
      // No call: the marker stays prose, and so does any marker inside the JSON that followed it.
      from = Math.max(bound, valueEnd(text, skipSpaces(text, bodyStart), stop));
      continue;
    }
    calls.push(...found.calls);
    const fenced = text.startsWith("```", skipSpaces(text, bodyStart));
    let end = fenced ? skipFenceCloser(text, found.end) : found.end;
    let closeTag: Span | undefined;
    const after = skipSpaces(text, end);
    const closeLength = markerAt(text, after, markers.close);
    if (closeLength > 0) end = after + closeLength;
    else {
      // Prose written after the calls inside the section stays prose; its close tag does not.
      const closing = closes(end);
      if (closing !== -1 && firstOf(closing, opens(end)) === closing) {
        closeTag = { start: closing, end: closing + markerAt(text, closing, markers.close) };
      }
    }
    spans.push({ start: at, end });
    if (closeTag) spans.push(closeTag);
    from = closeTag?.end ?? end;
  }
  if (calls.length === 0) return undefined;
  return { calls: calls.slice(0, MAX_TEXT_CALLS), prose: proseOutside(text, spans) };
}

/** A "marker, then JSON call(s)" format (see parseMarkedCalls), detected by any of its opening markers. */
export function markedCallsFormat(spec: {
  id: string;
  family: string;
  markers: CallMarkers;
  read?: ReadAfterMarker;
}): ToolFormat {
  const read = spec.read ?? readJsonCalls;
  return {
    id: spec.id,
    family: spec.family,
    detect: (text) => spec.markers.open.some((m) => text.includes(m)),
    parse: (text, ctx) => parseMarkedCalls(text, ctx, spec.markers, read),
  };
}
