/**
 * Quoted call syntax is text, not an action. A model explaining its own format ("Qwen writes
 * `<tool_call>{…}</tool_call>`"), summarising a document that contains call syntax, quoting a tool
 * result back (`> <tool_call>…`) or showing an example ("for example: <tool_call>…") must not trigger
 * a call. Before text calls are looked for, every region that quotes a call marker is replaced by a
 * placeholder; the placeholders are put back in the prose (and in any call argument that quoted
 * them) afterwards. Quoting regions:
 * - inline code spans and fenced blocks;
 * - blockquotes: a run of lines starting with `>` (not `>>>`, functionary's call marker);
 * - an example: a marker introduced as one ("for example", "e.g.", "the format is", "do not run", …)
 *   on its own line before it or in the same line, up to the end of its paragraph.
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
/** Marker occurrences examined for an example lead-in per message. */
const MAX_EXAMPLE_CHECKS = 64;
/** How far before a marker its lead-in is read. */
const LEAD_CHARS = 200;

/** Words that introduce call syntax as an example or a warning, not as an action. */
const EXAMPLE_LEAD =
  /\b(?:for example|for instance|an example|example call|example:|the format is|format looks like|formatted (?:as|like)|looks like this|like this:|the syntax|do not (?:run|call|execute|use)|don't (?:run|call|execute|use)|never (?:run|call|execute)|such as)\b|\be\.g\./i;

export interface Region {
  start: number;
  /** Exclusive. */
  end: number;
}

export interface MaskedText {
  text: string;
  /** How many regions were replaced (0: `text` is the input). */
  regions: number;
  /** Puts the masked code back into a piece of the masked text. */
  restore(s: string): string;
}

/** Masks the regions of `text` that quote one of `markers` (see above). Linear in the text. */
export function maskQuotedCode(text: string, markers: readonly string[]): MaskedText {
  const holds = (r: Region) => markers.some((m) => text.slice(r.start, r.end).includes(m));
  const regions = [
    ...codeRegions(text, { exemptCalls: true }).filter(holds),
    ...blockquoteRegions(text).filter((r) => quotesACall(text, r, markers)),
    ...exampleRegions(text, markers),
  ];
  if (regions.length === 0) return unmasked(text);
  regions.sort((a, b) => a.start - b.start || b.end - a.end);
  const saved: string[] = [];
  let out = "";
  let at = 0;
  for (const r of regions) {
    if (r.start < at || saved.length >= MAX_REGIONS) continue; // inside one already masked
    out += `${text.slice(at, r.start)}${OPEN}${saved.length}${CLOSE}`;
    saved.push(text.slice(r.start, r.end));
    at = r.end;
  }
  out += text.slice(at);
  return {
    text: out,
    regions: saved.length,
    restore: (s) => (s.includes(OPEN) ? s.replace(PLACEHOLDER, (m, n: string) => saved[Number(n)] ?? m) : s),
  };
}

/**
 * The inline code spans and fenced blocks of `text`, in order. With `exemptCalls`, a fence that is
 * the whole message and ```tool_code fences are left out (they are how some families write calls).
 * Linear; at most MAX_REGIONS.
 */
export function codeRegions(text: string, options: { exemptCalls?: boolean } = {}): Region[] {
  if (!text.includes("`")) return [];
  const first = firstNonSpace(text);
  const last = lastNonSpace(text);
  const out: Region[] = [];
  let i = 0;
  let nextNewline = -2;
  while (i < text.length && out.length < MAX_REGIONS) {
    const tick = text.indexOf("`", i);
    if (tick < 0) break;
    let end: number;
    if (text.startsWith("```", tick)) {
      const close = text.indexOf("```", tick + 3);
      end = close < 0 ? text.length : close + 3;
      const info = text.slice(tick + 3, Math.min(end, tick + 40));
      const wholeMessage = tick === first && end >= last + 1;
      if (options.exemptCalls && (wholeMessage || /^\s*tool_code\b/.test(info))) {
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
    out.push({ start: tick, end });
    i = end;
  }
  return out;
}

/** Runs of blockquoted lines (`> …`, not `>>>`), each run one region. Linear; at most MAX_REGIONS. */
export function blockquoteRegions(text: string): Region[] {
  if (!text.includes(">")) return [];
  const out: Region[] = [];
  let open: Region | undefined;
  for (let start = 0; start < text.length && out.length < MAX_REGIONS; ) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl + 1;
    if (quotedLine(text, start, end)) {
      if (open) open.end = end;
      else open = { start, end };
    } else if (open) {
      out.push(open);
      open = undefined;
    }
    start = end;
  }
  if (open) out.push(open);
  return out;
}

/** Whether the line holding `at` is blockquoted. Looks at one line. */
export function inBlockquote(text: string, at: number): boolean {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  return quotedLine(text, start, at + 1);
}

/** Whether the call syntax at `at` is introduced as an example or a warning (see EXAMPLE_LEAD). */
export function introducedAsExample(text: string, at: number): boolean {
  return exampleLead(text, at) !== undefined;
}

/**
 * Where the example lead-in of the call syntax at `at` is: in its own line before it ("line"), or
 * the line above ("above": when the marker starts its line, or that line ends with a colon).
 */
function exampleLead(text: string, at: number): "line" | "above" | undefined {
  const window = text.slice(Math.max(0, at - LEAD_CHARS), at);
  const nl = window.lastIndexOf("\n");
  const lead = window.slice(nl + 1);
  if (EXAMPLE_LEAD.test(lead)) return "line";
  if (nl < 0) return undefined;
  // Lines holding only special tokens (`<|message_sep|>`) are invisible: the lead-in is above them.
  const before = window
    .slice(0, nl)
    .replace(/(?:\n[ \t]*(?:<\|[\w.:-]{1,40}\|>[ \t]*)*)+$/, "")
    .trimEnd();
  const previous = before.slice(before.lastIndexOf("\n") + 1);
  const startsLine = /^[\s>]*$/.test(lead);
  return (startsLine || previous.endsWith(":")) && EXAMPLE_LEAD.test(previous) ? "above" : undefined;
}

/**
 * From each marker introduced as an example to the end of its paragraph. A marker with another
 * marker before it may be quoted inside that call's arguments (`"text": "…, e.g. <tool_call>…"`):
 * masking to the end of the paragraph would hide the end of the call that quotes it, so a lead-in in
 * the marker's own line counts only for the first marker of the text.
 */
function exampleRegions(text: string, markers: readonly string[]): Region[] {
  // One pass for the words first: most replies introduce nothing, and then no marker is searched.
  if (!EXAMPLE_LEAD.test(text)) return [];
  let first = -1;
  for (const m of markers) {
    const at = text.indexOf(m);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  const out: Region[] = [];
  let checks = 0;
  for (const marker of markers) {
    for (let at = text.indexOf(marker); at >= 0 && checks < MAX_EXAMPLE_CHECKS; checks++) {
      const lead = exampleLead(text, at);
      if (lead === "above" || (lead === "line" && at === first)) {
        const blank = text.indexOf("\n\n", at);
        const end = blank < 0 ? text.length : blank;
        out.push({ start: at, end });
        at = text.indexOf(marker, end);
      } else at = text.indexOf(marker, at + marker.length);
    }
  }
  return out;
}

/** What ends a value inside a call: a bracket, Gemma's `<|"|>`, a parameter's or call's closing tag. */
const VALUE_END =
  /[}\]]|<\|"\|>|<\/(?:[\w.-]+:)?(?:parameter|param|arg_value|arg_key|function|invoke|tool_call)>/;

/**
 * Whether a blockquote quotes a call: it holds a marker, and nothing that ends a value comes before
 * its first marker. A `>` line with `}`, `]`, `</parameter>` or Gemma's `<|"|>` before the marker is
 * more likely the rest of a value inside a call's arguments (XML and Gemma values keep their line
 * breaks): masking it would hide the end of the call that holds it.
 */
function quotesACall(text: string, r: Region, markers: readonly string[]): boolean {
  const quote = text.slice(r.start, r.end);
  let first = -1;
  for (const m of markers) {
    const at = quote.indexOf(m);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first >= 0 && !VALUE_END.test(quote.slice(0, first));
}

function quotedLine(text: string, start: number, end: number): boolean {
  let i = start;
  while (i < end && (text[i] === " " || text[i] === "\t")) i++;
  return text[i] === ">" && !text.startsWith(">>>", i);
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
