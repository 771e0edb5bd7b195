/**
 * Which part of a streamed answer may be shown while it is still being written. Normalizing the
 * whole message at the end may remove reasoning, text-format tool calls, special tokens and harmony
 * channels: any of them starts with one of these, so the preview stops at the first one for good
 * (what follows shows with the final answer). The word being written is held back too (it may be
 * the start of a marker), and so is trailing whitespace (the final answer is trimmed).
 */
const MARKERS = [
  "<",
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
  /** Takes the whole answer text so far; returns the newly showable text ("" when none). */
  next(content: string): string;
  /** Everything shown so far. */
  readonly shown: string;
  /** No more text may be shown (a native tool call started, or the step failed). */
  stop(): void;
}

export function createAnswerPreview(options: { reasoningUntilClose: boolean }): AnswerPreview {
  let shown = "";
  let stopped = false;

  const showable = (content: string): string => {
    let start = 0;
    if (options.reasoningUntilClose) {
      let close = -1;
      let closeLength = 0;
      for (const tag of BARE_CLOSES) {
        const at = content.indexOf(tag);
        if (at >= 0 && (close < 0 || at < close)) {
          close = at;
          closeLength = tag.length;
        }
      }
      if (close < 0) return "";
      start = close + closeLength;
    }
    const body = content.slice(start).trimStart();
    const lower = body.slice(0, 12).toLowerCase();
    if (HARMONY_STARTS.some((w) => lower.startsWith(w) || (lower.length < w.length && w.startsWith(lower))))
      return "";
    let end = body.length;
    let markerFound = false;
    // What was shown holds no marker: only its last few characters (a marker's start) are searched again.
    const from = Math.max(0, shown.length - 24);
    for (const m of MARKERS) {
      const at = body.indexOf(m, from);
      if (at >= 0 && at < end) {
        end = at;
        markerFound = true;
      }
    }
    let text = body.slice(0, end);
    if (!markerFound) {
      // The last word may still grow into a marker: only whole words (followed by whitespace) show.
      const lastSpace = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\n"), text.lastIndexOf("\t"));
      text = lastSpace < 0 ? "" : text.slice(0, lastSpace);
    } else {
      // The word glued to a marker ("o<tool_call>", "check.assistantcommentary") stays hidden too.
      const lastSpace = Math.max(text.lastIndexOf(" "), text.lastIndexOf("\n"), text.lastIndexOf("\t"));
      if (end < body.length && !/\s/.test(body[end - 1] ?? " "))
        text = lastSpace < 0 ? "" : text.slice(0, lastSpace);
    }
    return text.trimEnd();
  };

  return {
    next(content) {
      if (stopped) return "";
      const text = showable(content);
      // Only ever growing: a preview never takes back what it showed.
      if (text.length <= shown.length || !text.startsWith(shown)) return "";
      const delta = text.slice(shown.length);
      shown = text;
      return delta;
    },
    get shown() {
      return shown;
    },
    stop() {
      stopped = true;
    },
  };
}
