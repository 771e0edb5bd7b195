import { anyFinder, firstOf, nextFinder } from "./finders.ts";
import { scanJsonValue, stopAtMarkers } from "./json-calls.ts";
import { isQualifiedNameChar, runEnd } from "./name-chars.ts";
import { skipSpaces } from "./scan-text.ts";

/** One message of gpt-oss's harmony format, raw or with its special tokens stripped. */
export interface HarmonyMessage {
  /** "analysis" (reasoning), "commentary" (preambles and calls), "final", or "" when none was written. */
  channel: string;
  /** As written after `to=` (`functions.get_weather`), "" when the message has none. */
  recipient: string;
  /** `json` from `<|constrain|>json` (or a bare `json`), "" when none. */
  contentType: string;
  content: string;
  /** "token": closed by <|end|>, <|call|> or <|return|>; "next": the next message began; "eof": cut off. */
  endedBy: "token" | "next" | "eof";
}

const START = "<|start|>";
const CHANNEL = "<|channel|>";
const MESSAGE = "<|message|>";
const CONSTRAIN = "<|constrain|>";
const END_TOKENS = ["<|end|>", "<|call|>", "<|return|>"];
const CHANNELS = ["analysis", "commentary", "final"];
/** With the tokens stripped a new message shows as `assistant` glued to its channel. */
const GLUED = CHANNELS.map((c) => `assistant${c}`);
/** A header longer than this is not one (the `<|message|>` found belongs to something else). */
const MAX_HEADER = 256;

/**
 * The messages of a harmony text, or undefined when it shows no harmony structure. After `maxCalls`
 * messages addressed to `functions.*` the rest of the text is one message without a channel. Reads the raw form
 * (`<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>commentary to=functions.f
 * <|constrain|>json<|message|>{…}<|call|>`, the recipient before or after the channel, as llama.cpp's
 * tests show) and the stripped form servers without a harmony parser return
 * (`analysis…assistantcommentary to=functions.f json{…}assistantfinal…`). Linear: cached forward finds.
 */
export function harmonyMessages(
  text: string,
  maxCalls = Number.POSITIVE_INFINITY,
): HarmonyMessage[] | undefined {
  const hasTokens = text.includes(MESSAGE) || text.includes(CHANNEL) || text.includes(START);
  if (!hasTokens && !GLUED.some((g) => text.includes(g)) && !text.includes("to=functions.")) return undefined;
  const starts = nextFinder(text, START);
  const messages = nextFinder(text, MESSAGE);
  const ends = anyFinder(text, END_TOKENS);
  const glued = anyFinder(text, GLUED);
  // A call's JSON ends where it closes; a token or message header outside its strings cuts it (and
  // keeps each scan within its own message).
  const stop = stopAtMarkers(text, [START, CHANNEL, MESSAGE, ...END_TOKENS, ...GLUED]);

  const out: HarmonyMessage[] = [];
  let pos = 0;
  let structured = false;
  let calls = 0;
  while (pos < text.length) {
    if (calls >= maxCalls) {
      // Past the cap the rest stays text, as one message without a channel.
      out.push({ channel: "", recipient: "", contentType: "", content: text.slice(pos), endedBy: "eof" });
      break;
    }
    const explicit = text.startsWith(START, pos);
    const h = explicit ? pos + START.length : pos;
    // A raw header is closed by <|message|> before anything that would end the message.
    const message = messages(h);
    const boundary = firstOf(ends(h), starts(h));
    const raw = message !== -1 && message - h <= MAX_HEADER && (boundary === -1 || message < boundary);
    const header = raw
      ? rawHeader(text.slice(h, message), message + MESSAGE.length)
      : strippedHeader(text, h);
    if (header.channel || header.recipient) structured = true;
    if (header.recipient.startsWith("functions.")) calls++;

    let from = header.contentStart;
    let jsonEnd = -1;
    const first = skipSpaces(text, from);
    if (header.recipient && (text.charCodeAt(first) === 123 || text.charCodeAt(first) === 91)) {
      const scanned = scanJsonValue(text, first, stop);
      if (scanned.complete) jsonEnd = scanned.end;
    }
    if (jsonEnd !== -1) from = jsonEnd;
    const endToken = ends(from);
    const next = firstOf(starts(from), glued(from));
    let contentEnd = firstOf(endToken, next);
    if (contentEnd === -1) contentEnd = text.length;
    // Text after a call's JSON that is not an end token stands alone (it becomes prose).
    if (jsonEnd !== -1 && skipSpaces(text, jsonEnd) < contentEnd) contentEnd = jsonEnd;
    const endedBy = contentEnd === endToken ? "token" : contentEnd < text.length ? "next" : "eof";
    out.push({
      channel: header.channel,
      recipient: header.recipient,
      contentType: header.contentType,
      content: text.slice(header.contentStart, contentEnd),
      endedBy,
    });
    let after = contentEnd;
    if (endedBy === "token") after += END_TOKENS.find((t) => text.startsWith(t, contentEnd))!.length;
    pos = after > pos ? after : pos + 1;
  }
  return structured ? out : undefined;
}

/**
 * Reasoning (the analysis channel) and the answer (final channel, commentary preambles, text outside
 * any channel) of a harmony text without calls; a text without harmony structure is all answer.
 */
export function splitHarmony(text: string): { reasoning: string; final: string } {
  const messages = harmonyMessages(text);
  if (!messages) return { reasoning: "", final: text.trim() };
  const reasoning: string[] = [];
  const final: string[] = [];
  for (const m of messages) {
    const content = m.content.trim();
    if (content === "" || m.recipient) continue;
    (m.channel === "analysis" ? reasoning : final).push(content);
  }
  return { reasoning: reasoning.join("\n"), final: final.join("\n") };
}

interface Header {
  channel: string;
  recipient: string;
  contentType: string;
  contentStart: number;
}

/** A header closed by <|message|>: whitespace-separated, `<|channel|>X`, `to=R`, `<|constrain|>T`. */
function rawHeader(header: string, contentStart: number): Header {
  let rest = header.replace(CONSTRAIN, ` ${CONSTRAIN}`);
  let channel = "";
  const c = rest.indexOf(CHANNEL);
  if (c !== -1) {
    const after = rest.slice(c + CHANNEL.length);
    channel = /^[^\s<]*/.exec(after)![0];
    rest = `${rest.slice(0, c)} ${after.slice(channel.length)}`;
  }
  let recipient = "";
  let contentType = "";
  for (const token of rest.split(/\s+/)) {
    if (token.startsWith("to=")) recipient ||= token.slice(3);
    else if (token.startsWith(CONSTRAIN)) contentType = token.slice(CONSTRAIN.length);
    else if (token.toLowerCase() === "json") contentType ||= "json";
  }
  return { channel, recipient, contentType, contentStart };
}

/** A header with its tokens gone: `[assistant]channel[ to=R][ [<|constrain|>]json]`, then the content. */
function strippedHeader(text: string, h: number): Header {
  let i = h;
  if (text.startsWith("assistant", i)) i += "assistant".length;
  if (text.startsWith(CHANNEL, i)) i += CHANNEL.length;
  const channel = CHANNELS.find((c) => text.startsWith(c, i)) ?? "";
  let recipient = "";
  let contentType = "";
  if (channel) i += channel.length;
  let j = skipSpaces(text, i);
  if (text.startsWith("to=", j)) {
    const r = j + 3;
    const k = runEnd(text, r, isQualifiedNameChar, MAX_HEADER);
    recipient = text.slice(r, k);
    i = k;
  }
  if (!channel && !recipient) return { channel, recipient, contentType, contentStart: h };
  j = skipSpaces(text, i);
  const constrained = text.startsWith(CONSTRAIN, j);
  if (constrained) j += CONSTRAIN.length;
  if (text.slice(j, j + 4).toLowerCase() === "json" && !/[A-Za-z0-9_]/.test(text[j + 4] ?? "")) {
    contentType = "json";
    i = j + 4;
  } else if (constrained) i = j;
  j = skipSpaces(text, i);
  if (text.startsWith(MESSAGE, j)) i = j + MESSAGE.length;
  else if (recipient) i = skipSpaces(text, i);
  return { channel, recipient, contentType, contentStart: i };
}
