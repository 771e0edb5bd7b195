import { markedCallsFormat } from "./marked-calls.ts";

/**
 * IBM Granite before 3.1: Granite 3.0 writes the special token `<|tool_call|>` then a JSON list of
 * calls (`<|tool_call|>[{"name": …, "arguments": {…}}]`); granite-20b-functioncalling writes one
 * `<function_call> {…}` per call, several in a row, without a closing tag (a model that learned Hermes
 * habits may write `</function_call>`: it is no prose). The JSON after each marker ends where its
 * brackets close; what follows is prose. (Granite 3.1+ writes `<tool_call>[…]`, read by the hermes
 * format.)
 */
export const graniteFormat = markedCallsFormat({
  id: "granite",
  family: "Granite 3.0 (<|tool_call|>[…]), granite-20b-functioncalling (<function_call> {…})",
  markers: { open: ["<|tool_call|>", "<function_call>"], close: ["</function_call>"] },
});
