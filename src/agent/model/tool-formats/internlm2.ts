import { markedCallsFormat, readJsonCalls } from "./marked-calls.ts";
import { skipSpaces } from "./scan-text.ts";

const PLUGIN = "<|plugin|>";

/**
 * InternLM2 / 2.5: `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`, one
 * call per action (several actions in a row are read in turn). An action for another executor
 * (`<|action_start|><|interpreter|>` is code to run) is no call and stays in the prose. An action
 * never ended is complete when its JSON closes.
 */
export const internlm2Format = markedCallsFormat({
  id: "internlm2",
  family: "InternLM2 / InternLM2.5: <|action_start|><|plugin|>{json}<|action_end|>",
  markers: { open: ["<|action_start|>"], close: ["<|action_end|>"] },
  read: (text, pos, at) => {
    const plugin = skipSpaces(text, pos);
    return text.startsWith(PLUGIN, plugin) ? readJsonCalls(text, plugin + PLUGIN.length, at) : undefined;
  },
});
