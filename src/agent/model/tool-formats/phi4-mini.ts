import { markedCallsFormat, readJsonCalls } from "./marked-calls.ts";
import { skipSpaces } from "./scan-text.ts";

/**
 * Phi-4-mini (its `functools` token) and FireFunction v2 (` functools[`): the word `functools`
 * directly followed by a JSON list of calls, `functools[{"name": …, "arguments": {…}}]`. The list ends
 * where its brackets close; the text around it is prose. `functools` followed by anything but a list
 * of calls (Python prose about the module) is left alone.
 */
export const phi4MiniFormat = markedCallsFormat({
  id: "phi4_mini",
  family: "Phi-4-mini, FireFunction v2: functools[{json}, …]",
  markers: { open: ["functools"], close: [] },
  read: (text, pos, at) => (text[skipSpaces(text, pos)] === "[" ? readJsonCalls(text, pos, at) : undefined),
});
