import { firstOf, nextFinder } from "./finders.ts";
import { hasNonNameChar } from "./name-chars.ts";
import type { Span } from "./prose.ts";
import { isSpace, skipSpaces, skipSpacesBack } from "./scan-text.ts";
import { MAX_TEXT_CALLS } from "./types.ts";

/** The tags of one XML call family (Qwen3-Coder, MiniMax-M2, DeepSeek V3.2 DSML). */
export interface XmlDialect {
  /** Opens a call; its name follows (`<function=NAME>` or `<invoke name="NAME">`). */
  callOpen: string;
  callClose: string;
  paramOpen: string;
  paramClose: string;
  /** Written around one or several calls; removed from the prose with them. */
  wrapperOpen: string;
  wrapperClose: string;
  /** "bare": the name runs to `>`; "attribute": a (quoted) attribute value, then more attributes. */
  header: "bare" | "attribute";
  /** Qwen3-Coder: a `<parameter=` that ends an unclosed value must start a line (vLLM's rule). */
  paramOpenStartsLine: boolean;
}

export interface XmlParam {
  name: string;
  /** Further attributes of the parameter tag (DSML's `string="true"`). */
  attributes: Record<string, string>;
  /** The value text exactly as written between the tags. */
  raw: string;
}

export interface XmlCall {
  name: string;
  params: XmlParam[];
  /** True only when the call's own close tag (`</function>`, `</invoke>`) was written. */
  complete: boolean;
}

/** Longest tag header read (`<function=…>`, `<invoke name="…" …>`); past it the tag is not one. */
const MAX_HEADER = 512;

type Header =
  | { kind: "ok"; name: string; attributes: Record<string, string>; end: number }
  | { kind: "cut"; name: string }
  | { kind: "invalid" };

/**
 * Finds the calls of an XML family and the spans they (and their wrappers) cover. A parameter's value
 * ends at its structural close tag (one followed by the next parameter, the call's close, the next
 * call or the wrapper's close, as vLLM's qwen3coder parser decides), or, when that tag is missing, at
 * the next parameter or the call's close. A call is complete only when its own close tag was written:
 * one that runs into the next call, or into the text's end, was cut off. Linear: every search is a
 * cached forward `indexOf`.
 */
export function scanXmlCalls(text: string, d: XmlDialect): { calls: XmlCall[]; spans: Span[] } {
  const structuralAfter = (at: number, tag: string, extra: string[]) => {
    const next = skipSpaces(text, at + tag.length);
    return next === text.length || extra.some((t) => text.startsWith(t, next));
  };
  const callOpens = nextFinder(text, d.callOpen);
  const paramCloses = nextFinder(text, d.paramClose, (at) =>
    structuralAfter(at, d.paramClose, [d.paramOpen, d.callClose, d.wrapperClose, d.callOpen]),
  );
  const paramOpens = nextFinder(
    text,
    d.paramOpen,
    (at) => !d.paramOpenStartsLine || at === 0 || text.charCodeAt(at - 1) === 10,
  );
  const structuralCallCloses = nextFinder(text, d.callClose, (at) =>
    structuralAfter(at, d.callClose, [d.wrapperClose, d.callOpen, d.wrapperOpen]),
  );
  const callCloses = nextFinder(text, d.callClose);
  const tagEnds = nextFinder(text, ">");

  const calls: XmlCall[] = [];
  const spans: Span[] = [];
  let at = 0;
  while (calls.length < MAX_TEXT_CALLS) {
    const start = callOpens(at);
    if (start === -1) break;
    const header = readHeader(text, start + d.callOpen.length, d.header, tagEnds);
    if (header.kind === "invalid") {
      at = start + d.callOpen.length;
      continue;
    }
    if (header.kind === "cut") {
      if (header.name !== "") calls.push({ name: header.name, params: [], complete: false });
      spans.push(widen(text, { start, end: text.length }, d, spans));
      break;
    }
    const params: XmlParam[] = [];
    let pos = header.end;
    let closed = false;
    for (;;) {
      const p = skipSpaces(text, pos);
      if (p >= text.length) {
        pos = p;
        break;
      }
      if (text.startsWith(d.callClose, p)) {
        closed = true;
        pos = p + d.callClose.length;
        break;
      }
      if (!text.startsWith(d.paramOpen, p)) {
        // Stray text inside the call: step to the next parameter or to the call's close; at the next
        // call (or with neither ahead) this call ends unclosed.
        const nextCall = callOpens(p);
        const next = firstOf(paramOpens(p + 1), callCloses(p), nextCall);
        if (next === -1 || next === nextCall) {
          pos = p;
          break;
        }
        pos = next;
        continue;
      }
      const ph = readHeader(text, p + d.paramOpen.length, d.header, tagEnds);
      if (ph.kind === "cut") {
        pos = text.length;
        break;
      }
      if (ph.kind === "invalid") {
        pos = p;
        break;
      }
      const valueStart = ph.end;
      const end = firstOf(paramCloses(valueStart), paramOpens(valueStart), structuralCallCloses(valueStart));
      if (end === -1) {
        params.push({ name: ph.name, attributes: ph.attributes, raw: text.slice(valueStart) });
        pos = text.length;
        break;
      }
      params.push({ name: ph.name, attributes: ph.attributes, raw: text.slice(valueStart, end) });
      pos = text.startsWith(d.paramClose, end) ? end + d.paramClose.length : end;
    }
    // No parameter and no close, with text after the tag: the call was only mentioned. (With nothing
    // after the tag the model was cut off right after the name.)
    if (!closed && params.length === 0 && pos < text.length && skipSpaces(text, header.end) < text.length) {
      at = header.end;
      continue;
    }
    calls.push({ name: header.name, params, complete: closed });
    spans.push(widen(text, { start, end: pos }, d, spans));
    at = pos;
  }
  return { calls, spans };
}

function widen(text: string, span: Span, d: XmlDialect, before: Span[]): Span {
  const floor = before.length > 0 ? before[before.length - 1]!.end : 0;
  return widenOverWrapper({ text, span, open: d.wrapperOpen, close: d.wrapperClose, floor });
}

/**
 * Widens a call's span over a wrapper tag written around it (`<tool_call>` before, `</tool_call>`
 * after, with only whitespace between), so the wrapper does not stay behind in the prose.
 */
function widenOverWrapper({
  text,
  span,
  open,
  close,
  floor,
}: {
  text: string;
  span: Span;
  open: string;
  close: string;
  /** Nothing before this offset is taken (the previous call's end). */
  floor: number;
}): Span {
  let { start, end } = span;
  const before = skipSpacesBack(text, start, floor);
  if (before - open.length >= floor && text.startsWith(open, before - open.length))
    start = before - open.length;
  const after = skipSpaces(text, end);
  if (text.startsWith(close, after)) end = after + close.length;
  return { start, end };
}

/** The tag header from `from` (just after `<function=` or `<invoke name=`) to its `>`. */
function readHeader(
  text: string,
  from: number,
  style: "bare" | "attribute",
  tagEnds: (from: number) => number,
): Header {
  const close = tagEnds(from);
  if (close === -1 || close - from > MAX_HEADER) {
    if (close === -1 && text.length - from <= MAX_HEADER) {
      return { kind: "cut", name: partialName(text.slice(from), style) };
    }
    return { kind: "invalid" };
  }
  const inside = text.slice(from, close);
  if (style === "bare") {
    const name = inside.trim();
    return name === "" || hasNonNameChar(name)
      ? { kind: "invalid" }
      : { kind: "ok", name, attributes: {}, end: close + 1 };
  }
  const parsed = parseAttributes(`name=${inside}`);
  const name = parsed?.name?.trim();
  if (!parsed || !name) return { kind: "invalid" };
  const { name: _, ...attributes } = parsed;
  return { kind: "ok", name, attributes, end: close + 1 };
}

function partialName(rest: string, style: "bare" | "attribute"): string {
  const name =
    style === "attribute"
      ? rest
          .trim()
          .replace(/^["']/, "")
          .split(/["'\s]/)[0]!
      : rest.trim();
  return hasNonNameChar(name) ? "" : name;
}

/** `key="value" key2='v' key3=bare` → an object; undefined when malformed. Input is short (a header). */
function parseAttributes(header: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let i = 0;
  for (;;) {
    i = skipSpaces(header, i);
    if (i >= header.length || header.charCodeAt(i) === 47 /* / */) return out;
    const keyStart = i;
    while (i < header.length && isAttributeNameChar(header.charCodeAt(i))) i++;
    const key = header.slice(keyStart, i);
    if (key === "" || header.charCodeAt(i) !== 61 /* = */) return undefined;
    i++;
    const quote = header[i];
    let value: string;
    if (quote === '"' || quote === "'") {
      const end = header.indexOf(quote, i + 1);
      if (end === -1) return undefined;
      value = header.slice(i + 1, end);
      i = end + 1;
    } else {
      const start = i;
      while (i < header.length && !isSpace(header.charCodeAt(i))) i++;
      value = header.slice(start, i);
    }
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
}

/** Letters, digits, `_`, `-` and `:` (attribute names). */
function isAttributeNameChar(c: number): boolean {
  const lower = c | 32;
  return (lower >= 97 && lower <= 122) || (c >= 48 && c <= 58) || c === 95 || c === 45;
}
