import { scanCallValues } from "./json-call-scan.ts";
import { markedCallsFormat } from "./marked-calls.ts";
import { skipSpaces } from "./scan-text.ts";

/**
 * `<tool_calls>…</tool_calls>` holding JSON calls: AI21 Jamba and ServiceNow Apriel write one list
 * (`<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>`), MiniMax-M1 one object per line.
 * A value in the section that is not a call is skipped (as vLLM's MiniMax parser skips a broken line);
 * a section never closed is complete as far as its JSON closes (a list that never closed is not).
 */
export const toolCallsTagFormat = markedCallsFormat({
  id: "tool_calls_tag",
  family: "Jamba, Apriel ([…]), MiniMax-M1 (one object per line): <tool_calls>…</tool_calls>",
  markers: { open: ["<tool_calls>"], close: ["</tool_calls>"] },
  read: (text, pos, at) =>
    scanCallValues(text, skipSpaces(text, pos), at.budget, { stop: at.stop, skipNonCalls: true }),
});
