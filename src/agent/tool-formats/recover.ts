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

/**
 * Runs the formats in order over one message: the first whose `detect` fires and whose `parse`
 * yields calls wins. When none does but the text holds one of `markers`, the attempt is reported as
 * unrecovered (the loop asks the model again instead of showing markup to the user).
 */
export function recoverWith(
  formats: readonly ToolFormat[],
  markers: readonly string[],
  text: string,
  ctx: ToolFormatContext,
): Recovered {
  for (const format of formats) {
    if (!format.detect(text)) continue;
    const match = format.parse(text, ctx);
    if (match && match.calls.length > 0) return { format: format.id, calls: match.calls, prose: match.prose };
  }
  const marker = markers.find((m) => text.includes(m));
  return { calls: [], prose: text, ...(marker ? { unrecovered: marker } : {}) };
}
