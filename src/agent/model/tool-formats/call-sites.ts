import { isSpace } from "./scan-text.ts";

/**
 * Where a reply looks like it starts a call in markup nobody registered: any tag or special token
 * whose name says call (`<xyz_tool_call>`, `<|START_ACTION|>`, `<TOOLCALL>`, `<function_calls>`,
 * `<steptml:invoke name="x">`, `<function=x>`), or a keyword that starts a line (`Action:`,
 * `Tool call:`, `function call<|role_sep|>`, Qwen-Agent's `✿FUNCTION✿:`, functionary's `>>>name`),
 * or a tag named after an offered tool that starts a line (Cline / Roo Code). Only the opening is
 * found here; what follows is read by the schema-guided reader, which claims nothing unless it names
 * an offered tool with arguments that fit.
 */
export interface CallSite {
  /** Where the wrapper starts. */
  start: number;
  /** Just past the wrapper: where the call's name or arguments are written. */
  bodyStart: number;
  /** A tool name the wrapper itself carries (`<invoke name="x">`, `<function=x>`, `>>>x`). */
  name?: string;
  /** A keyword (`Action:`, `>>>x`), not a tag: it has no closing tag to show where a call ends. */
  keyword?: true;
}

/** `<` examined per message; past this many the rest stays text (hostile text full of `<`). */
const MAX_ANGLES = 4096;
/** Longest tag or token name read. */
const MAX_TAG_NAME = 48;
/** Longest attribute list read inside one tag. */
const MAX_ATTRIBUTES = 256;

const CALL_WORD = /tool|function|call|action|invoke|plugin|api|command|execute/i;
/** Tags that hold results, thoughts or values, and the closing halves of token pairs: never an opening. */
const NOT_AN_OPENING =
  /think|result|response|output|observation|param|arg_|argument|^end|_end$|end_|suffix|close|stop|sep$|description|definition|^tools$|available/i;
/** A call keyword at a line start (tried only there, sticky). */
const KEYWORD_AT =
  /[ \t]*(?:(?:action|tool[ _-]?calls?|function[ _-]?calls?|tool|function|call|invoke)[ \t]*(?::|(?=<\|))|✿FUNCTION✿[ \t]*:|>>>)/iy;

/**
 * A finder of call sites in `text`, asked with positions that only grow: each asks for the first
 * site at or after `from`. Linear over a whole scan; at most MAX_ANGLES `<` are looked at.
 */
export function callSiteFinder(
  text: string,
  isToolName?: (name: string) => boolean,
): (from: number) => CallSite | undefined {
  let angles = 0;
  let nextTag: CallSite | undefined | null = null; // null: not searched from here yet
  let tagFrom = -1;
  let nextKeyword: CallSite | undefined | null = null;
  let keywordFrom = -1;
  const tagAt = (from: number): CallSite | undefined => {
    for (let at = text.indexOf("<", from); at >= 0 && angles < MAX_ANGLES; at = text.indexOf("<", at + 1)) {
      angles++;
      const site = readTag(text, at, isToolName);
      if (site) return site;
    }
    return undefined;
  };
  const keywordAt = (from: number): CallSite | undefined => {
    // Line starts at or after `from`: each is looked at once, with a sticky match.
    let line = from === 0 ? 0 : text.indexOf("\n", from - 1) + 1;
    if (from !== 0 && line === 0) return undefined;
    for (;;) {
      KEYWORD_AT.lastIndex = line;
      const m = KEYWORD_AT.exec(text);
      const site = m ? keywordSite(text, line, m[0]) : undefined;
      if (site) return site;
      const nl = text.indexOf("\n", line);
      if (nl < 0) return undefined;
      line = nl + 1;
    }
  };
  return (from) => {
    if (nextTag === null || from < tagFrom || (nextTag && nextTag.start < from)) {
      nextTag = tagAt(from);
      tagFrom = from;
    }
    if (nextKeyword === null || from < keywordFrom || (nextKeyword && nextKeyword.start < from)) {
      nextKeyword = keywordAt(from);
      keywordFrom = from;
    }
    if (!nextTag) return nextKeyword;
    if (!nextKeyword) return nextTag;
    return nextTag.start <= nextKeyword.start ? nextTag : nextKeyword;
  };
}

/** The site a keyword at the line start `line` opens; functionary's `>>>all` is its text channel. */
function keywordSite(text: string, line: number, keyword: string): CallSite | undefined {
  const start = line + (keyword.length - keyword.trimStart().length);
  const end = line + keyword.length;
  if (!keyword.endsWith(">>>")) return { start, bodyStart: end, keyword: true };
  // functionary v3.2: `>>>name\n{…}`.
  let i = end;
  while (i < text.length && i - end < 128 && /[\w.\-:]/.test(text[i]!)) i++;
  const name = text.slice(end, i);
  return name && name !== "all" ? { start, bodyStart: i, name, keyword: true } : undefined;
}

/**
 * The call site a `<` at `at` opens, if its tag or token is call-like, or (Cline / Roo Code's XML
 * tool use) a tag at the start of a line named after an offered tool: `<create_ticket>\n<title>…`.
 * Looks at a bounded stretch.
 */
function readTag(text: string, at: number, isToolName?: (name: string) => boolean): CallSite | undefined {
  let i = at + 1;
  const bar = text[i] === "|" || text[i] === "｜";
  if (bar) i++;
  const nameStart = i;
  while (i < text.length && i - nameStart < MAX_TAG_NAME && isTagNameChar(text.charCodeAt(i))) i++;
  const tag = text.slice(nameStart, i);
  if (!bar && text[i] === ">" && isToolName && startsLine(text, at) && isToolName(tag)) {
    return { start: at, bodyStart: i + 1, name: tag };
  }
  if (tag.length < 2 || !CALL_WORD.test(tag) || NOT_AN_OPENING.test(tag)) return undefined;
  if (bar) {
    if (text[i] !== "|" && text[i] !== "｜") return undefined;
    return text[i + 1] === ">" ? { start: at, bodyStart: i + 2 } : undefined;
  }
  if (text[i] === ">") return { start: at, bodyStart: i + 1 };
  const close = text.indexOf(">", i);
  if (close < 0 || close - i > MAX_ATTRIBUTES) return undefined;
  const rest = text.slice(i, close);
  if (rest.startsWith("=")) {
    // `<function=name>`: the name is the tag's value.
    const name = rest
      .slice(1)
      .trim()
      .replace(/^["']|["']$/g, "");
    return /^[\w.\-:/]+$/.test(name) ? { start: at, bodyStart: close + 1, name } : undefined;
  }
  if (!isSpace(rest.charCodeAt(0))) return undefined;
  const named = /\b(?:name|tool_name|function)\s*=\s*(?:"([^"]*)"|'([^']*)')/.exec(rest);
  const name = named ? (named[1] ?? named[2] ?? "").trim() : undefined;
  return { start: at, bodyStart: close + 1, ...(name ? { name } : {}) };
}

function startsLine(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text[i] === " " || text[i] === "\t")) i--;
  return i < 0 || text[i] === "\n";
}

function isTagNameChar(c: number): boolean {
  const lower = c | 32;
  return (
    (lower >= 97 && lower <= 122) ||
    (c >= 48 && c <= 57) ||
    c === 95 /* _ */ ||
    c === 45 /* - */ ||
    c === 58 /* : */ ||
    c === 46 /* . */ ||
    c === 0x2581 /* ▁ */
  );
}
