import { bareToolName } from "../../../tools/tool-names.ts";
import { maskQuotedCode, restoreInValue } from "../code-regions.ts";
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

/**
 * Reads the calls written as text in one message.
 * - Code that quotes call syntax (inline spans, fenced blocks) is masked first: quoted is not called.
 * - Of the formats whose `detect` fires, the one whose marker comes first in the text is tried first
 *   (list order breaks ties), so a call quoted inside another call's arguments never wins over the
 *   call that quotes it; formats without a marker start at the first character (they only claim a
 *   whole message). The first that yields calls wins; its remaining text is the prose.
 * - When none does but a call marker starts a line, the model tried to call a tool in a form nobody
 *   reads: `unrecovered` (the loop asks again instead of showing markup). A marker in the middle of a
 *   sentence is just a mention.
 */
export function recoverWith(
  formats: readonly OrderedFormat[],
  allMarkers: readonly string[],
  written: string,
  ctx: ToolFormatContext,
): Recovered {
  const masked = maskQuotedCode(written, allMarkers);
  const text = masked.text;
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
      const calls =
        masked.regions === 0
          ? match.calls
          : match.calls.map((c) => ({
              ...c,
              arguments:
                typeof c.arguments === "string"
                  ? masked.restore(c.arguments)
                  : (restoreInValue(c.arguments, masked.restore) as Record<string, unknown>),
            }));
      return { format: format.id, calls, prose: masked.restore(match.prose) };
    }
    if (match.prose !== text.trim()) answerOnly ??= masked.restore(match.prose);
  }
  if (answerOnly !== undefined) return { calls: [], prose: answerOnly };
  const marker = allMarkers.find((m) => startsALine(text, m));
  return { calls: [], prose: written, ...(marker ? { unrecovered: marker } : {}) };
}

/**
 * Whether a call starting at `at` stands where models write calls: at the start of the text or of a
 * line, after the end of a sentence (`.`, `!`, `?`) or after a tag or token (`>`, `]`, `)`, `|`, `｜`).
 * Special tokens (`<|…|>`, `<｜…｜>`) are never prose, so they stand anywhere.
 */
function leadsIn(text: string, at: number): boolean {
  if (text.startsWith("<|", at) || text.startsWith("<｜", at)) return true;
  let i = at - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\t")) i--;
  return i < 0 || ".!?>])|｜\n\r<".includes(text[i]!);
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

/** True when `marker` occurs at the start of the text or of a line (after blanks). Linear. */
function startsALine(text: string, marker: string): boolean {
  for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) {
    let i = at - 1;
    while (i >= 0 && (text[i] === " " || text[i] === "\t")) i--;
    if (i < 0 || text[i] === "\n" || text[i] === "\r") return true;
  }
  return false;
}

function firstNonSpace(text: string): number {
  const m = /\S/.exec(text);
  return m ? m.index : 0;
}

/** A tool name once its namespace, index and leaked tokens are cut: an identifier, at most 128 characters. */
function plausibleName(name: string): boolean {
  return /^[A-Za-z_][\w-]{0,127}$/.test(bareToolName(name));
}
