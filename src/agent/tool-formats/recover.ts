import { bareToolName } from "../../tools/tool-names.ts";
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
  // A format may read the whole text as an answer with no call (llama.cpp's `{"response": "…"}`,
  // TGI's `notify_error`): that prose is the answer unless a later format finds calls.
  let answerOnly: { format: string; prose: string } | undefined;
  for (const format of formats) {
    if (!format.detect(text)) continue;
    const match = format.parse(text, ctx);
    if (!match) continue;
    if (match.calls.length > 0) {
      // A "name" that is no name (`create_ticket(title=VPN`, a sentence) means the text only looked
      // like this format: it is not a call, whatever else reads it.
      if (!match.calls.every((c) => plausibleName(c.name))) continue;
      return { format: format.id, calls: match.calls, prose: match.prose };
    }
    if (match.prose !== text.trim()) answerOnly ??= { format: format.id, prose: match.prose };
  }
  if (answerOnly) return { calls: [], prose: answerOnly.prose };
  const marker = markers.find((m) => text.includes(m));
  return { calls: [], prose: text, ...(marker ? { unrecovered: marker } : {}) };
}

/** A tool name once its namespace, index and leaked tokens are cut: an identifier, at most 128 characters. */
function plausibleName(name: string): boolean {
  return /^[A-Za-z_][\w-]{0,127}$/.test(bareToolName(name));
}
