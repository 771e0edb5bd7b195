import { MAX_JSON_DEPTH } from "../../../core/json-limits.ts";
import { isSpace } from "./scan-text.ts";

/** Gemma 4's string delimiter token: `key:<|"|>value<|"|>`. */
export const GEMMA_QUOTE = '<|"|>';

/**
 * Where the argument braces opened at `open` close: the index after the matching `}`, skipping
 * `<|"|>…<|"|>` strings and `"…"` strings written at a value's start; -1 when the text (up to `limit`)
 * ends first. One pass with a counter, whatever the nesting.
 */
export function gemmaArgsEnd(text: string, open: number, limit = text.length): number {
  let depth = 0;
  let valueStart = true;
  for (let i = open; i < limit; i++) {
    if (text.startsWith(GEMMA_QUOTE, i)) {
      const closeQuote = text.indexOf(GEMMA_QUOTE, i + GEMMA_QUOTE.length);
      if (closeQuote === -1 || closeQuote + GEMMA_QUOTE.length > limit) return -1;
      i = closeQuote + GEMMA_QUOTE.length - 1;
      valueStart = false;
      continue;
    }
    const c = text.charCodeAt(i);
    if (isSpace(c)) continue;
    if (c === 34 /* " */ && valueStart) {
      const end = jsonStringEnd(text, i, limit);
      if (end === -1) return -1;
      i = end - 1;
      valueStart = false;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth === 0) return i + 1;
    }
    valueStart = c === 123 || c === 91 || c === 44 /* , */ || c === 58; /* : */
  }
  return -1;
}

/**
 * Gemma 4's argument syntax (the text between the call's braces) as JSON data: bare keys, `<|"|>`
 * strings (or `"…"`), bare numbers/booleans/null, nested `{…}` and `[…]`. A bare value runs to the
 * next `,` `}` `]`; when a server stripped the `<|"|>` tokens, a segment without a `:` continues the
 * string before it (`location:Paris, France`). Undefined when it nests deeper than MAX_JSON_DEPTH.
 */
export function parseGemmaArgs(body: string): Record<string, unknown> | undefined {
  const reader = new ArgsReader(body);
  try {
    return reader.object(body.length, 0);
  } catch (err) {
    if (err instanceof TooDeep) return undefined;
    throw err;
  }
}

class TooDeep {}

class ArgsReader {
  pos = 0;
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  skip(limit: number): void {
    while (
      this.pos < limit &&
      (isSpace(this.text.charCodeAt(this.pos)) || this.text.charCodeAt(this.pos) === 44)
    )
      this.pos++;
  }

  /** Entries up to `}` (consumed) or `limit`. */
  object(limit: number, depth: number): Record<string, unknown> {
    if (depth > MAX_JSON_DEPTH) throw new TooDeep();
    const entries = new Map<string, unknown>();
    let lastKey: string | undefined;
    let lastBare = false;
    for (;;) {
      const gapStart = this.pos;
      this.skip(limit);
      if (this.pos >= limit) return Object.fromEntries(entries);
      if (this.text.charCodeAt(this.pos) === 125 /* } */) {
        this.pos++;
        return Object.fromEntries(entries);
      }
      const key = this.key(limit);
      if (key === undefined) {
        // No `:` before the next separator: the rest of a stripped string (comma included), or noise.
        const piece = this.text.slice(gapStart, this.pos);
        if (lastKey !== undefined && lastBare) entries.set(lastKey, `${entries.get(lastKey)}${piece}`);
        if (this.pos < limit && this.text.charCodeAt(this.pos) === 93) this.pos++; // stray ]
        continue;
      }
      const start = this.pos;
      const value = this.value(limit, depth + 1);
      lastBare = typeof value === "string" && !this.quotedAt(start);
      lastKey = key;
      entries.set(key, value);
    }
  }

  array(limit: number, depth: number): unknown[] {
    if (depth > MAX_JSON_DEPTH) throw new TooDeep();
    const items: unknown[] = [];
    for (;;) {
      this.skip(limit);
      if (this.pos >= limit) return items;
      const c = this.text.charCodeAt(this.pos);
      if (c === 93 /* ] */) {
        this.pos++;
        return items;
      }
      if (c === 125 /* } */) return items; // malformed: leave the brace to the object
      items.push(this.value(limit, depth + 1));
    }
  }

  /** A key up to its `:` (the position moves after it); undefined when a separator comes first. */
  key(limit: number): string | undefined {
    const t = this.text;
    if (t.startsWith(GEMMA_QUOTE, this.pos)) {
      const end = t.indexOf(GEMMA_QUOTE, this.pos + GEMMA_QUOTE.length);
      if (end !== -1 && end < limit) {
        const key = t.slice(this.pos + GEMMA_QUOTE.length, end);
        this.pos = end + GEMMA_QUOTE.length;
        this.skipInline(limit);
        if (t.charCodeAt(this.pos) === 58) {
          this.pos++;
          return key;
        }
      }
    }
    const start = this.pos;
    while (this.pos < limit) {
      const c = t.charCodeAt(this.pos);
      if (c === 58 /* : */) {
        const raw = t.slice(start, this.pos).trim();
        this.pos++;
        return raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2 ? raw.slice(1, -1) : raw;
      }
      if (c === 44 || c === 125 || c === 93) return undefined;
      this.pos++;
    }
    return undefined;
  }

  skipInline(limit: number): void {
    while (this.pos < limit && isSpace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  quotedAt(start: number): boolean {
    let i = start;
    while (i < this.text.length && isSpace(this.text.charCodeAt(i))) i++;
    return this.text.startsWith(GEMMA_QUOTE, i) || this.text.charCodeAt(i) === 34;
  }

  value(limit: number, depth: number): unknown {
    const t = this.text;
    this.skipInline(limit);
    if (this.pos >= limit) return "";
    if (t.startsWith(GEMMA_QUOTE, this.pos)) {
      const from = this.pos + GEMMA_QUOTE.length;
      const end = t.indexOf(GEMMA_QUOTE, from);
      const stop = end === -1 || end >= limit ? limit : end;
      this.pos = stop === limit ? limit : stop + GEMMA_QUOTE.length;
      return t.slice(from, stop);
    }
    const c = t.charCodeAt(this.pos);
    if (c === 123 /* { */) {
      this.pos++;
      return this.object(limit, depth);
    }
    if (c === 91 /* [ */) {
      this.pos++;
      return this.array(limit, depth);
    }
    if (c === 34 /* " */) {
      const end = jsonStringEnd(t, this.pos, limit);
      const stop = end === -1 ? limit : end;
      const literal = t.slice(this.pos, stop);
      this.pos = stop;
      try {
        return JSON.parse(literal);
      } catch {
        return literal.slice(1, end === -1 ? undefined : -1);
      }
    }
    const start = this.pos;
    while (this.pos < limit) {
      const d = t.charCodeAt(this.pos);
      if (d === 44 || d === 93 || d === 125) break;
      this.pos++;
    }
    return bareValue(t.slice(start, this.pos).trim());
  }
}

/** A bare value typed as vLLM's gemma4 parser does: booleans, null/none/nil, numbers, else the text. */
function bareValue(raw: string): unknown {
  if (raw === "true") return true;
  if (raw === "false") return false;
  const lower = raw.toLowerCase();
  if (lower === "null" || lower === "none" || lower === "nil") return null;
  if (/^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(raw)) {
    const n = Number(raw);
    if (Number.isFinite(n)) return n;
  }
  return raw;
}

/** Index after the closing quote of the JSON string opening at `start`; -1 when `limit` comes first. */
function jsonStringEnd(text: string, start: number, limit: number): number {
  for (let i = start + 1; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}
