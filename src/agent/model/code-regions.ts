/**
 * Code in an answer is quoted text, not an action. A model explaining its own format ("Qwen writes
 * `<tool_call>{…}</tool_call>`"), or summarising a document that contains call syntax, must not
 * trigger a call. Before text calls are looked for, every inline code span and fenced block that
 * holds a call marker is replaced by a placeholder; the placeholders are put back in the prose (and
 * in any call argument that quoted code) afterwards.
 *
 * Not masked: a fence that is the whole message (xLAM and friends write their calls as one fenced
 * JSON block, and the bare formats claim only whole messages of offered tools), and Gemma's
 * ```tool_code fences (its call syntax).
 */

const OPEN = "\uE000";
const CLOSE = "\uE001";
const PLACEHOLDER = /\uE000(\d+)\uE001/g;
/** Regions masked per message; past this many the rest stays as written. */
const MAX_REGIONS = 1000;

export interface MaskedText {
  text: string;
  /** How many regions were replaced (0: `text` is the input). */
  regions: number;
  /** Puts the masked code back into a piece of the masked text. */
  restore(s: string): string;
}

/** Masks the code regions of `text` that contain one of `markers`. Linear in the text. */
export function maskQuotedCode(text: string, markers: readonly string[]): MaskedText {
  if (!text.includes("`")) return unmasked(text);
  const first = firstNonSpace(text);
  const last = lastNonSpace(text);
  const saved: string[] = [];
  let out = "";
  let at = 0; // copied up to here
  let i = 0;
  let nextNewline = -2;
  while (i < text.length && saved.length < MAX_REGIONS) {
    const tick = text.indexOf("`", i);
    if (tick < 0) break;
    let end: number;
    if (text.startsWith("```", tick)) {
      const close = text.indexOf("```", tick + 3);
      end = close < 0 ? text.length : close + 3;
      const info = text.slice(tick + 3, Math.min(end, tick + 40));
      const wholeMessage = tick === first && end >= last + 1;
      if (wholeMessage || /^\s*tool_code\b/.test(info)) {
        i = end;
        continue;
      }
    } else {
      if (nextNewline !== -1 && nextNewline < tick) nextNewline = text.indexOf("\n", tick);
      const close = text.indexOf("`", tick + 1);
      if (close < 0 || (nextNewline >= 0 && nextNewline < close)) {
        i = tick + 1;
        continue;
      }
      end = close + 1;
    }
    const region = text.slice(tick, end);
    if (markers.some((m) => region.includes(m))) {
      out += `${text.slice(at, tick)}${OPEN}${saved.length}${CLOSE}`;
      saved.push(region);
      at = end;
    }
    i = end;
  }
  if (saved.length === 0) return unmasked(text);
  out += text.slice(at);
  return {
    text: out,
    regions: saved.length,
    restore: (s) => (s.includes(OPEN) ? s.replace(PLACEHOLDER, (m, n: string) => saved[Number(n)] ?? m) : s),
  };
}

/** Restores masked code inside a parsed argument value (strings at any depth up to 64). */
export function restoreInValue(value: unknown, restore: (s: string) => string, depth = 0): unknown {
  if (typeof value === "string") return restore(value);
  if (depth > 64 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => restoreInValue(v, restore, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [restore(k), restoreInValue(v, restore, depth + 1)]),
  );
}

function unmasked(text: string): MaskedText {
  return { text, regions: 0, restore: (s) => s };
}

function firstNonSpace(text: string): number {
  const m = /\S/.exec(text);
  return m ? m.index : text.length;
}

function lastNonSpace(text: string): number {
  let i = text.length - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return i;
}
