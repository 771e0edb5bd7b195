import type { Rule } from "./redact-rules.ts";

/**
 * Runs redaction rules over a screening view and remembers, for every placeholder written, which
 * characters of the view it replaced. The caller maps those ranges back to the source text, so the
 * output is the original text with only the secret spans replaced — even when the secret was only
 * visible after normalization (full-width digits, `%2D`, zero-width characters inside a number).
 */

/** A placeholder in the current text (`cs..ce`) standing for the view's characters `vs..ve`. */
interface Segment {
  cs: number;
  ce: number;
  vs: number;
  ve: number;
}

/** A replacement found in the view: characters `start..end` become `text`. */
export interface Span {
  start: number;
  end: number;
  text: string;
}

interface Replacement {
  a: number;
  b: number;
  text: string;
}

/**
 * Applies `rules` in order, in rounds until nothing changes (at most `maxRounds`), and returns the
 * placeholders as spans of `view`. Linear per pass: each pass is one regex scan plus a merge walk.
 */
export function findSpans(view: string, rules: readonly Rule[], maxRounds: number): Span[] {
  let cur = view;
  let segments: Segment[] = [];
  for (let round = 0; round < maxRounds; round++) {
    let changed = false;
    for (const rule of rules) {
      const found: Replacement[] = [];
      const next = cur.replace(rule.pattern, (...args: unknown[]) => {
        const match = args[0] as string;
        const out = (rule.replace as (...a: unknown[]) => string)(...args);
        if (out !== match) found.push(narrow(args[args.length - 2] as number, match, out));
        return out;
      });
      if (found.length === 0) continue;
      segments = merge(segments, found);
      cur = next;
      changed = true;
    }
    if (!changed) break;
  }
  return segments.map((s) => ({ start: s.vs, end: s.ve, text: cur.slice(s.cs, s.ce) }));
}

/** The part of `match` that changed: `password=hunter2` → `password=[secret]` replaces `hunter2` only. */
function narrow(offset: number, match: string, out: string): Replacement {
  let p = 0;
  const max = Math.min(match.length, out.length);
  while (p < max && match[p] === out[p]) p++;
  let s = 0;
  while (s < max - p && match[match.length - 1 - s] === out[out.length - 1 - s]) s++;
  // A placeholder is replaced whole or not at all: `[phone]root` → `[secret]` must not keep the
  // `[` of the old placeholder and replace `phone]root` with `secret]`.
  while (p > 0 && match[p - 1] === "[") p--;
  while (s > 0 && match[match.length - s] === "]") s--;
  if (p + s >= match.length) return { a: offset, b: offset + match.length, text: out };
  return { a: offset + p, b: offset + match.length - s, text: out.slice(p, out.length - s) };
}

/** Folds one pass's replacements (in current-text coordinates, ascending) into the segments. */
function merge(segments: Segment[], found: Replacement[]): Segment[] {
  const out: Segment[] = [];
  let i = 0;
  // view index − current index, for positions past the segments consumed so far
  let delta = 0;
  // new current index − old current index, for positions past the replacements applied so far
  let shift = 0;
  for (const r of found) {
    while (i < segments.length && segments[i]!.ce <= r.a) {
      const s = segments[i++]!;
      out.push({ cs: s.cs + shift, ce: s.ce + shift, vs: s.vs, ve: s.ve });
      delta = s.ve - s.ce;
    }
    const first = segments[i];
    const vs = first && first.cs < r.a ? first.vs : r.a + delta;
    let ve = r.b + delta;
    while (i < segments.length && segments[i]!.cs < r.b) {
      const s = segments[i++]!;
      delta = s.ve - s.ce;
      ve = s.ce > r.b ? s.ve : r.b + delta;
    }
    out.push({ cs: r.a + shift, ce: r.a + shift + r.text.length, vs, ve });
    shift += r.text.length - (r.b - r.a);
  }
  while (i < segments.length) {
    const s = segments[i++]!;
    out.push({ cs: s.cs + shift, ce: s.ce + shift, vs: s.vs, ve: s.ve });
  }
  return out;
}

/**
 * `source` with each span (in view coordinates, mapped through `origin`) replaced by its text. No
 * `origin`: the view is the source itself.
 */
export function applySpans(source: string, origin: Int32Array | undefined, spans: readonly Span[]): string {
  const at0 = (i: number) => (origin ? origin[i]! : i);
  let out = "";
  let at = 0;
  for (const span of spans) {
    const start = Math.max(at0(span.start), at);
    const end = Math.max(at0(span.end), start);
    out += source.slice(at, start) + span.text;
    at = end;
  }
  return out + source.slice(at);
}
