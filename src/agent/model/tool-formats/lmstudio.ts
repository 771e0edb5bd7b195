import { markedCallsFormat } from "./marked-calls.ts";

/**
 * LM Studio's default tool-use format, prompted into models without native tool support:
 * `[TOOL_REQUEST]{"name": …, "arguments": {…}}[END_TOOL_REQUEST]`. When LM Studio's own parser misses
 * one (a malformed call, streaming quirks), it reaches us as content. The VCP protocol's
 * `<<<[TOOL_REQUEST]>>> key:「始」value「末」` blocks share the words but hold no JSON: they stay prose.
 */
export const lmStudioFormat = markedCallsFormat({
  id: "lmstudio",
  family: "LM Studio default tool use: [TOOL_REQUEST]{json}[END_TOOL_REQUEST]",
  markers: { open: ["[TOOL_REQUEST]"], close: ["[END_TOOL_REQUEST]"] },
});
