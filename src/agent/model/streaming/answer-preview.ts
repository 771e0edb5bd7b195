/**
 * Which part of a streamed answer may be shown while it is still being written. Normalizing the
 * whole message at the end may remove reasoning, text-format tool calls, special tokens and harmony
 * channels: any of them starts with one of these, so the preview stops at the first one for good
 * (what follows shows with the final answer). The word being written is held back too (it may be
 * the start of a marker), and so is trailing whitespace (the final answer is trimmed).
 */
const MARKERS = [
  "<",
  ">", // blockquotes (a quoted call stays in the answer as written) and functionary's `>>>name`
  "Action:", // ReAct / Command R call keywords read by the schema-guided reader
  "✿", // Qwen-Agent's `✿FUNCTION✿:` / `✿ARGS✿:` lines
  "[",
  "{",
  "`",
  "|",
  "｜",
  "to=functions",
  "assistantfinal",
  "assistantcommentary",
  "functools",
];

/** Harmony without its special tokens starts with a channel name: such a message shows nothing early. */
const HARMONY_STARTS = ["analysis", "commentary", "final", "assistant"];

/** Closing reasoning tags: models whose template opens the block in the prompt write only these. */
const BARE_CLOSES = ["</think>", "</thinking>", "</reasoning>", "[/THINK]"];

/**
 * Models whose chat template may open a reasoning block in the prompt (Qwen3, QwQ, DeepSeek-R1, GLM,
 * MiniMax, Magistral, "thinking" variants): their answer text is reasoning until a closing tag.
 */
const TEMPLATE_REASONING = /qwen3|qwq|deepseek|\br1\b|-r1|glm|minimax|magistral|think|reason/i;

/** Families whose templates never open a reasoning block (OpenAI's chat models, Llama 3, Mistral, Gemma…). */
const PLAIN_FAMILIES = /^(gpt-4|gpt-3\.5)|llama-?3|mistral|mixtral|gemma|phi-?[34]|command-r/i;

/**
 * Whether a model's answers may start inside a reasoning block its template opened. Unknown at first
 * for other models, so nothing shows until the first answer of the model tells: one with a bare
 * closing tag means yes for good; one without means no (a template opens the block every time or
 * never). Reasoning families always count as yes, plain ones as no until they write a bare close.
 */
export function createReasoningLearner(model: string) {
  let opens: boolean | undefined = TEMPLATE_REASONING.test(model)
    ? true
    : PLAIN_FAMILIES.test(model)
      ? false
      : undefined;
  return {
    get mayOpen(): boolean {
      return opens !== false;
    },
    /** Learns from a whole answer's text (as the server sent it). */
    learn(content: unknown) {
      if (opens === true || typeof content !== "string" || content.trim() === "") return;
      if (bareClose(content)) opens = true;
      else opens ??= false;
    },
  };
}

function bareClose(content: string): boolean {
  const close = Math.min(...BARE_CLOSES.map((t) => content.indexOf(t)).filter((i) => i >= 0));
  if (!Number.isFinite(close)) return false;
  const open = ["<think>", "<thinking>", "<reasoning>", "[THINK]"]
    .map((t) => content.indexOf(t))
    .filter((i) => i >= 0);
  return open.length === 0 || Math.min(...open) > close;
}

export interface AnswerPreview {
  /** Takes the next piece of the answer text; returns the newly showable text ("" when none). */
  add(delta: string): string;
  /** Everything shown so far. */
  readonly shown: string;
  /** No more text may be shown (a native tool call started, or the step failed). */
  stop(): void;
}

const LONGEST_MARKER = Math.max(...MARKERS.map((m) => m.length));
const LONGEST_CLOSE = Math.max(...BARE_CLOSES.map((t) => t.length));
/** How much of the answer's start the harmony check reads (settled once that much came). */
const HEAD = 12;
const SPACE = /\s/;
/** What ends a word for the preview: the word being written is the text after the last of these. */
const isBreak = (c: string) => c === " " || c === "\n" || c === "\t";

/** The first of `needles` in `text` (where, and its length), or undefined. */
function firstOf(text: string, needles: readonly string[]): { at: number; length: number } | undefined {
  let found: { at: number; length: number } | undefined;
  for (const n of needles) {
    const at = text.indexOf(n);
    if (at >= 0 && (!found || at < found.at)) found = { at, length: n.length };
  }
  return found;
}

/**
 * The preview is fed the answer piece by piece and reads each piece once: a closing tag or a marker
 * cut between two pieces is found in the piece plus the few characters before it, and only the text
 * not shown yet is kept (sliced once a whole word more may show). A piece costs the same however long
 * the answer already is. What shows is what the whole text so far allows: the answer after the first
 * closing tag (for a model whose template opens reasoning), from its first non-space character, up to
 * the first marker, without the word being written or the word glued to the marker, trailing
 * whitespace trimmed; nothing when the answer starts like a harmony channel name.
 */
export function createAnswerPreview(options: { reasoningUntilClose: boolean }): AnswerPreview {
  let shown = "";
  let stopped = false;
  // Positions are absolute: characters since the answer's first piece.
  let length = 0;
  /** Where the answer may start (after the first closing tag); -1 until that tag came. */
  let start = options.reasoningUntilClose ? -1 : 0;
  let closeCarry = "";
  /** The body's first character (the first non-space one from `start`); -1 until it came. */
  let bodyStart = -1;
  let head = "";
  let markerCarry = "";
  /** Where the showable text ends once a marker was found (nothing after it ever shows); -1 before. */
  let finalEnd = -1;
  // The body read so far: the end of its last non-space character, that end as it was when the last
  // whitespace character was read, the last word break, and the end of the trimmed text before it.
  let nonSpaceEnd = -1;
  let nonSpaceEndAtSpace = -1;
  let lastBreak = -1;
  let beforeBreak = -1;
  /** The text from `pendingFrom` on: read, not shown. */
  let pending = "";
  let pendingFrom = 0;
  let shownEnd = -1;

  /** Reads body text `text`, which starts at `at`. */
  const readBody = (text: string, at: number) => {
    if (head.length < HEAD) head += text.slice(0, HEAD - head.length);
    if (finalEnd >= 0) return;
    // A marker may have begun in the characters before this piece.
    const window = markerCarry + text;
    const windowAt = at - markerCarry.length;
    const marker = firstOf(window, MARKERS);
    const readTo = marker ? Math.max(0, marker.at - markerCarry.length) : text.length;
    for (let i = 0; i < readTo; i++) {
      const c = text[i]!;
      if (SPACE.test(c)) {
        nonSpaceEndAtSpace = nonSpaceEnd;
        if (isBreak(c)) {
          lastBreak = at + i;
          beforeBreak = nonSpaceEnd;
        }
      } else nonSpaceEnd = at + i + 1;
    }
    if (!marker) {
      markerCarry = window.slice(-LONGEST_MARKER);
      return;
    }
    const m = windowAt + marker.at;
    // What was read after the marker's start is the marker itself (no marker holds whitespace): the
    // state read so far is the state at the marker.
    if (m === bodyStart) finalEnd = bodyStart;
    else if (SPACE.test(window[marker.at - 1]!)) finalEnd = nonSpaceEndAtSpace;
    // The word glued to a marker ("o<tool_call>", "check.assistantcommentary") stays hidden too.
    else finalEnd = lastBreak < 0 ? bodyStart : beforeBreak;
  };

  const harmonyStart = (): boolean => {
    const lower = head.toLowerCase();
    return HARMONY_STARTS.some(
      (w) => lower.startsWith(w) || (lower.length < w.length && w.startsWith(lower)),
    );
  };

  const preview: AnswerPreview = {
    add(delta) {
      if (stopped || !delta) return "";
      const at = length;
      length += delta.length;
      pending += delta;
      let rest = delta;
      let restAt = at;
      if (start < 0) {
        const window = closeCarry + delta;
        const close = firstOf(window, BARE_CLOSES);
        if (!close) {
          closeCarry = window.slice(-LONGEST_CLOSE);
          // Reasoning never shows: none of it is kept.
          pending = "";
          pendingFrom = length;
          return "";
        }
        start = at - closeCarry.length + close.at + close.length;
        rest = delta.slice(Math.max(0, start - at));
        restAt = Math.max(start, at);
      }
      if (bodyStart < 0) {
        const first = rest.search(/\S/);
        if (first < 0) return "";
        bodyStart = restAt + first;
        rest = rest.slice(first);
        restAt = bodyStart;
        pending = pending.slice(bodyStart - pendingFrom);
        pendingFrom = bodyStart;
        shownEnd = bodyStart;
        nonSpaceEnd = bodyStart;
        nonSpaceEndAtSpace = bodyStart;
      }
      readBody(rest, restAt);
      if (harmonyStart()) {
        // The check reads only the first characters: once they are in, nothing ever shows.
        if (head.length >= HEAD) preview.stop();
        return "";
      }
      const end = finalEnd >= 0 ? finalEnd : lastBreak < 0 ? bodyStart : beforeBreak;
      // Only ever growing: a preview never takes back what it showed.
      if (end <= shownEnd) {
        if (finalEnd >= 0) preview.stop();
        return "";
      }
      const out = pending.slice(shownEnd - pendingFrom, end - pendingFrom);
      pending = pending.slice(end - pendingFrom);
      pendingFrom = end;
      shownEnd = end;
      shown += out;
      if (finalEnd >= 0) preview.stop();
      return out;
    },
    get shown() {
      return shown;
    },
    stop() {
      stopped = true;
      pending = "";
    },
  };
  return preview;
}
