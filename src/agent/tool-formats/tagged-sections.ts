import { joinProse } from "./marker-scan.ts";
import { type FormatMatch, MAX_TEXT_CALLS, type ParsedCall } from "./types.ts";

/** Tagged sections examined per message; past this many, the rest stays text (no model writes more). */
const MAX_SECTIONS = 64;

/** What a format read in one section's body. */
export interface SectionCalls {
  calls: ParsedCall[];
  /** Text of the body that is not a call (after the JSON), kept as prose. */
  rest: string;
}

/**
 * Reads calls written between an opening and a closing tag (`<tool_call>…</tool_call>`,
 * `<tool_calls>…</tool_calls>`, `[TOOL_REQUEST]…[END_TOOL_REQUEST]`, …), one or several sections, the
 * last possibly never closed: an open section runs to the next opening tag or to the end. A call in a
 * closed section is complete; in an open one, complete when `readBody` found its JSON closed. A body
 * `readBody` cannot read (undefined) stays in the prose, tags included; "foreign" means the text is
 * another format's and the whole parse gives up. Undefined when no section held a call.
 * Scans with indexOf only, each closing tag searched again only once passed: linear in the text.
 */
export function parseTaggedSections(
  text: string,
  tags: { open: string; close: string },
  readBody: (body: string) => SectionCalls | "foreign" | undefined,
): FormatMatch | undefined {
  const calls: ParsedCall[] = [];
  const prose: string[] = [];
  let at = 0;
  let close = -2;
  let retried = -1;
  for (let seen = 0; seen < MAX_SECTIONS && calls.length < MAX_TEXT_CALLS; seen++) {
    const open = text.indexOf(tags.open, at);
    if (open < 0) break;
    const bodyStart = open + tags.open.length;
    if (close !== -1 && close < bodyStart) close = text.indexOf(tags.close, bodyStart);
    const nextOpen = text.indexOf(tags.open, bodyStart);
    let closed = close >= 0 && (nextOpen < 0 || close < nextOpen);
    const bodyEnd = closed ? close : nextOpen >= 0 ? nextOpen : text.length;
    let read = readBody(text.slice(bodyStart, bodyEnd));
    if (read === "foreign") return undefined;
    // A JSON cut by the next opening tag may hold that tag inside a string (a ticket about the tag
    // itself): read again up to the closing tag, once per closing tag so the scan stays linear.
    const cut = read !== undefined && read.calls.at(-1)?.complete === false;
    if (cut && !closed && close > bodyEnd && close !== retried) {
      retried = close;
      const whole = readBody(text.slice(bodyStart, close));
      if (readsWhole(whole)) {
        read = whole;
        closed = true;
      }
    }
    const end = closed ? close + tags.close.length : bodyEnd;
    prose.push(text.slice(at, open));
    if (read === undefined || read.calls.length === 0) prose.push(text.slice(open, end));
    else {
      for (const call of read.calls) calls.push(closed ? { ...call, complete: true } : call);
      prose.push(read.rest);
    }
    at = end;
  }
  prose.push(text.slice(at));
  if (calls.length === 0) return undefined;
  return { calls: calls.slice(0, MAX_TEXT_CALLS), prose: joinProse(prose) };
}

/** A reading whose calls all closed, with nothing but blanks after them. */
function readsWhole(read: SectionCalls | "foreign" | undefined): read is SectionCalls {
  if (read === undefined || read === "foreign" || read.calls.length === 0) return false;
  return read.calls.every((c) => c.complete) && read.rest.trim() === "";
}
