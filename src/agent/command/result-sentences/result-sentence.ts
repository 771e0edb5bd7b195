import { type Json, readableValue } from "./readable-value.ts";
import { createdSentence, searchList, ticketCard, updatedSentence } from "./ticket-sentences.ts";

/** Tools whose results have their own sentence; `undefined` from one falls back to the generic rendering. */
const SENTENCES: Record<string, (value: Json) => string | undefined> = {
  create_ticket: createdSentence,
  get_ticket: ticketCard,
  update_ticket: updatedSentence,
  search_tickets: searchList,
};

/**
 * A tool's successful result (the text the runtime gave the model) as a person reads it: the tool's
 * own sentence when it has one, else its fields as words. A result that is already text (a sentence)
 * stays as it is; one cut for length says so and where the rest is.
 */
export function resultSentence(tool: string, content: string): string {
  const value = parseJson(content);
  if (value === undefined) return plainText(tool, content);
  const own = SENTENCES[tool]?.(value);
  if (own) return own;
  if (typeof value === "string") return value;
  return `\`${tool}\` returned:\n${readableValue(value)}`;
}

function parseJson(content: string): Json | undefined {
  const t = content.trim();
  if (!/^[[{"]/.test(t)) return undefined;
  try {
    return JSON.parse(t) as Json;
  } catch {
    return undefined;
  }
}

/** A text result, or a JSON one cut for length (which cannot be read as JSON any more). */
function plainText(tool: string, content: string): string {
  const cut = /\n…\[(\d+) of (\d+) characters cut(?:; full result: fetch_result ref="([^"]+)")?/.exec(
    content,
  );
  if (cut && /^\s*[[{]/.test(content)) {
    const ref = cut[3] ? ` (kept as \`${cut[3]}\`)` : "";
    return `\`${tool}\` returned a result too long to show here: ${cut[2]} characters${ref}. Ask for fewer results.`;
  }
  // A sentence reads as it is ("Deleted ticket #7 …."); a bare word is said to be the result.
  return /[.!?)]$/.test(content.trim()) ? content : `\`${tool}\` returned: ${content}`;
}
