import { type HarmonyMessage, harmonyMessages } from "./harmony-messages.ts";
import { jsonCloses } from "./json-calls.ts";
import { MAX_TEXT_CALLS, type ParsedCall, type ToolFormat, type ToolFormatContext } from "./types.ts";

const FUNCTIONS = "functions.";

/**
 * gpt-oss's harmony format: a call is a message addressed `to=functions.NAME` (commentary channel, or
 * analysis, which llama.cpp and Ollama accept too) whose content is the JSON arguments:
 * `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{…}<|call|>`,
 * or the same with the tokens stripped (`analysis…assistantcommentary to=functions.get_weather json{…}`),
 * as servers without a harmony parser return it. The name is returned as written (`functions.…`); a
 * `json` glued to it by the stripping is cut off when the shorter name is an offered tool. The final
 * channel, commentary preambles and text outside any channel are the prose; the analysis channel is
 * reasoning and is left out (`splitHarmony` in harmony-messages.ts returns it). Messages to other
 * recipients (built-in `browser.*`, `python`) are neither calls nor prose. A call whose arguments are
 * JSON is complete only when that JSON closed; other arguments when an end token ended them.
 */
export const harmonyFormat: ToolFormat = {
  id: "harmony",
  family: "gpt-oss harmony (raw and with special tokens stripped)",
  detect(text) {
    return text.includes(`to=${FUNCTIONS}`);
  },
  parse(text, ctx) {
    const messages = harmonyMessages(text, MAX_TEXT_CALLS);
    if (!messages) return undefined;
    const calls: ParsedCall[] = [];
    const prose: string[] = [];
    for (const m of messages) {
      if (m.recipient.startsWith(FUNCTIONS)) {
        const args = m.content.trim();
        calls.push({ name: calledName(m.recipient, ctx), arguments: args, complete: isComplete(args, m) });
      } else if (!m.recipient && m.channel !== "analysis") {
        const content = m.content.trim();
        if (content) prose.push(content);
      }
    }
    if (calls.length === 0) return undefined;
    return { calls, prose: prose.join("\n") };
  },
};

/**
 * JSON arguments are complete when they close, whatever token follows (an end token after broken JSON
 * does not finish it); other text when an end token (or the next message) ended it.
 */
function isComplete(args: string, m: HarmonyMessage): boolean {
  if (args.startsWith("{") || args.startsWith("[")) return jsonCloses(args);
  return m.endedBy === "token" || (args !== "" && m.endedBy === "next");
}

/** The recipient, minus a `json` content type glued on when the token between them was stripped. */
function calledName(recipient: string, ctx: ToolFormatContext): string {
  if (ctx.isToolName(recipient) || !recipient.toLowerCase().endsWith("json")) return recipient;
  const shorter = recipient.slice(0, -4);
  return ctx.isToolName(shorter) ? shorter : recipient;
}
