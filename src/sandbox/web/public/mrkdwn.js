/**
 * Slack's mrkdwn as a small syntax tree. The page renders the tree as DOM nodes, never as HTML, so
 * text the bot echoes from untrusted sources can only ever show up as text.
 *
 * Nodes: text, bold, italic, strike, code, pre, quote, link, user, channel, broadcast, date, emoji.
 */

/** The shortcodes Hermes and most bots use; others stay as typed, as Slack shows unknown ones. */
export const EMOJI = {
  "+1": "👍",
  "-1": "👎",
  bar_chart: "📊",
  bell: "🔔",
  bulb: "💡",
  calendar: "📆",
  chart_with_upwards_trend: "📈",
  clipboard: "📋",
  clock3: "🕒",
  exclamation: "❗",
  eyes: "👀",
  file_folder: "📁",
  fire: "🔥",
  gear: "⚙️",
  hammer_and_wrench: "🛠️",
  heavy_check_mark: "✔️",
  hourglass: "⌛",
  hourglass_flowing_sand: "⏳",
  information_source: "ℹ️",
  key: "🔑",
  large_green_circle: "🟢",
  large_yellow_circle: "🟡",
  link: "🔗",
  lock: "🔒",
  mag: "🔍",
  memo: "📝",
  no_entry: "⛔",
  no_entry_sign: "🚫",
  page_facing_up: "📄",
  paperclip: "📎",
  pencil2: "✏️",
  question: "❓",
  raised_hand: "✋",
  red_circle: "🔴",
  robot_face: "🤖",
  rotating_light: "🚨",
  shield: "🛡️",
  sparkles: "✨",
  speech_balloon: "💬",
  stopwatch: "⏱️",
  tada: "🎉",
  thinking_face: "🤔",
  thumbsdown: "👎",
  thumbsup: "👍",
  ticket: "🎫",
  warning: "⚠️",
  wastebasket: "🗑️",
  wave: "👋",
  white_check_mark: "✅",
  wrench: "🔧",
  x: "❌",
  zap: "⚡",
};

const SAFE_URL = /^(https?:|mailto:)/i;
const FORMAT = /(^|[^\p{L}\p{N}*_~])([*_~])(?=[^\s*_~])([^\n]*?[^\s])\2(?![\p{L}\p{N}])/u;
const KINDS = { "*": "bold", _: "italic", "~": "strike" };

/** `&lt;` `&gt;` `&amp;` back to characters (Slack escapes exactly these three). */
export function unescapeEntities(text) {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Parses a mrkdwn string into nodes. */
export function parseMrkdwn(text) {
  const clean = String(text ?? "").replace(/[\u0001\u0002]/g, "\uFFFD");
  const nodes = [];
  const parts = clean.split(/```/);
  // Odd parts sit between fences; an unclosed fence stays text, as in Slack.
  const isCode = (i) => i % 2 === 1 && i < parts.length - 1;
  parts.forEach((part, i) => {
    if (isCode(i)) {
      nodes.push({ type: "pre", text: unescapeEntities(part.replace(/^\n|\n$/g, "")) });
      return;
    }
    // A code block is a block of its own: the line breaks around its fences are not text.
    let text = i % 2 === 1 ? `\`\`\`${part}` : part;
    if (i > 0 && isCode(i - 1)) text = text.replace(/^\n/, "");
    if (isCode(i + 1)) text = text.replace(/\n$/, "");
    nodes.push(...blockLevel(text));
  });
  return nodes;
}

/** Plain text with its emoji shortcodes turned into emoji (plain_text objects with `emoji: true`). */
export function parsePlain(text) {
  return withEmoji(String(text ?? ""));
}

function blockLevel(text) {
  const nodes = [];
  let plain = [];
  let quote = [];
  const flushPlain = () => {
    if (plain.length > 0) nodes.push(...inline(plain.join("\n")));
    plain = [];
  };
  const flushQuote = () => {
    if (quote.length > 0) nodes.push({ type: "quote", children: inline(quote.join("\n")) });
    quote = [];
  };
  for (const line of text.split("\n")) {
    const quoted = /^(?:&gt;|>) ?(.*)$/.exec(line);
    if (quoted) {
      flushPlain();
      quote.push(quoted[1] ?? "");
    } else {
      flushQuote();
      plain.push(line);
    }
  }
  flushPlain();
  flushQuote();
  return nodes;
}

function inline(text) {
  const tokens = [];
  const hold = (node) => `\u0001${tokens.push(node) - 1}\u0002`;
  const held = text
    .replace(/`([^`\n]+)`/g, (_, code) => hold({ type: "code", text: unescapeEntities(code) }))
    .replace(/<([^<>\n]+)>/g, (_, inner) => hold(controlSequence(inner)));
  return formatted(held, tokens);
}

function formatted(text, tokens) {
  const nodes = [];
  let rest = text;
  for (;;) {
    const match = FORMAT.exec(rest);
    if (!match) break;
    const [whole, before = "", marker = "*", inner = ""] = match;
    nodes.push(...expand(rest.slice(0, match.index) + before, tokens));
    nodes.push({ type: KINDS[marker], children: formatted(inner, tokens) });
    rest = rest.slice(match.index + whole.length);
  }
  nodes.push(...expand(rest, tokens));
  return nodes;
}

function expand(text, tokens) {
  if (text === "") return [];
  const nodes = [];
  const parts = text.split(/\u0001(\d+)\u0002/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) nodes.push(tokens[Number(part)] ?? { type: "text", text: "" });
    else if (part) nodes.push(...withEmoji(unescapeEntities(part)));
  });
  return nodes;
}

function withEmoji(text) {
  const nodes = [];
  const parts = text.split(/:([a-z0-9_+-]+):/);
  let pending = parts[0] ?? "";
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i] ?? "";
    const emoji = EMOJI[name];
    if (emoji) {
      if (pending) nodes.push({ type: "text", text: pending });
      nodes.push({ type: "emoji", name, text: emoji });
      pending = parts[i + 1] ?? "";
    } else {
      pending += `:${name}:${parts[i + 1] ?? ""}`;
    }
  }
  if (pending) nodes.push({ type: "text", text: pending });
  return nodes;
}

function controlSequence(inner) {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : unescapeEntities(inner.slice(bar + 1));
  if (target.startsWith("@")) return { type: "user", id: target.slice(1), label };
  if (target.startsWith("#")) return { type: "channel", id: target.slice(1), label };
  if (target.startsWith("!date^")) {
    const [, ts = "", format = "", link] = target.split("^");
    return { type: "date", ts: Number(ts), format, link, fallback: label ?? "" };
  }
  if (target.startsWith("!")) {
    const name = target.slice(1).split("^")[0] ?? "";
    if (["here", "channel", "everyone"].includes(name)) return { type: "broadcast", name };
    return { type: "text", text: label ?? `@${name}` };
  }
  const url = unescapeEntities(target);
  if (!SAFE_URL.test(url)) return { type: "text", text: label ?? url };
  return { type: "link", url, text: label ?? url.replace(/^mailto:/i, "") };
}

/**
 * `<!date^…>` in the reader's time zone. Tokens: {date_num} {date} {date_short} {date_long},
 * their `_pretty` forms (today / yesterday / tomorrow), {time} {time_secs} {ago}.
 */
export function formatSlackDate(unixSeconds, format, now = new Date()) {
  if (!Number.isFinite(unixSeconds)) return undefined;
  const date = new Date(unixSeconds * 1000);
  const day = (options) => date.toLocaleDateString(undefined, options);
  const pretty = (fallback) => relativeDay(date, now) ?? fallback;
  const short = () => day({ month: "short", day: "numeric", year: "numeric" });
  const long = () => day({ weekday: "long", month: "long", day: "numeric", year: "numeric" });
  const plain = () => day({ month: "long", day: "numeric", year: "numeric" });
  const tokens = {
    date_num: () => date.toLocaleDateString("en-CA"),
    date: plain,
    date_short: short,
    date_long: long,
    date_pretty: () => pretty(plain()),
    date_short_pretty: () => pretty(short()),
    date_long_pretty: () => pretty(long()),
    time: () => date.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit" }),
    time_secs: () =>
      date.toLocaleTimeString(undefined, { hour: "numeric", minute: "2-digit", second: "2-digit" }),
    ago: () => ago(date, now),
  };
  let known = false;
  const text = format.replace(/\{(\w+)\}/g, (whole, name) => {
    const token = tokens[name];
    if (!token) return whole;
    known = true;
    return token();
  });
  return known ? text : undefined;
}

function relativeDay(date, now) {
  const midnight = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((midnight(date) - midnight(now)) / 86_400_000);
  return { "-1": "yesterday", 0: "today", 1: "tomorrow" }[days];
}

function ago(date, now) {
  const seconds = Math.round((date.getTime() - now.getTime()) / 1000);
  const units = [
    ["year", 31_536_000],
    ["month", 2_592_000],
    ["day", 86_400],
    ["hour", 3600],
    ["minute", 60],
    ["second", 1],
  ];
  const [unit, size] = units.find(([, s]) => Math.abs(seconds) >= s) ?? ["second", 1];
  return new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }).format(Math.round(seconds / size), unit);
}

export { toSlackText } from "./slack-text.js";
