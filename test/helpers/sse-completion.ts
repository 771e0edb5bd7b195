/**
 * A chat completion as the stream of chunks an OpenAI-compatible server sends for `stream: true`:
 * reasoning and content cut at the points `cut` chooses (inside markers too), each tool call's id and
 * name first with its argument text in pieces after, the finish reason last, then the usage chunk.
 */

/** Cuts a text into pieces; the default is a seeded random cut (1–6 characters a piece). */
export type Cutter = (text: string) => string[];

export function randomCutter(seed: number): Cutter {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: the same cuts for the same seed, so a failure can be replayed.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  return (text) => {
    const chars = [...text];
    const out: string[] = [];
    for (let i = 0; i < chars.length; ) {
      const n = 1 + Math.floor(next() * 6);
      out.push(chars.slice(i, i + n).join(""));
      i += n;
    }
    return out;
  };
}

type Json = Record<string, unknown>;

export function completionChunks(completion: Json, cut: Cutter = randomCutter(1)): Json[] {
  const base = {
    id: completion.id ?? "chatcmpl-stream",
    object: "chat.completion.chunk",
    created: completion.created ?? 1764420000,
    model: completion.model ?? "scripted",
  };
  const choice = ((completion.choices as Json[] | undefined) ?? [])[0] ?? {};
  const message = (choice.message ?? {}) as Json;
  const chunks: Json[] = [];
  const delta = (d: Json) => chunks.push({ ...base, choices: [{ index: 0, delta: d, finish_reason: null }] });
  delta({ role: "assistant", content: "" });
  for (const key of ["reasoning_content", "reasoning", "thinking"]) {
    const text = textOf(message[key]);
    if (text) for (const piece of cut(text)) delta({ [key]: piece });
  }
  const content = textOf(message.content);
  if (content) for (const piece of cut(content)) delta({ content: piece });
  if (Array.isArray(message.tool_calls)) {
    message.tool_calls.forEach((raw, index) => {
      const call = (raw ?? {}) as {
        id?: unknown;
        type?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      };
      const args = call.function?.arguments;
      const pieces = typeof args === "string" && args ? cut(args) : [args];
      const first: Json = {
        index,
        type: call.type ?? "function",
        function: { name: call.function?.name, arguments: pieces[0] ?? "" },
      };
      if (call.id !== undefined && call.id !== null) first.id = call.id;
      delta({ tool_calls: [first] });
      for (const p of pieces.slice(1)) delta({ tool_calls: [{ index, function: { arguments: p } }] });
    });
  }
  if (message.function_call && typeof message.function_call === "object") {
    const fc = message.function_call as { name?: unknown; arguments?: unknown };
    const pieces = typeof fc.arguments === "string" && fc.arguments ? cut(fc.arguments) : [fc.arguments];
    delta({ function_call: { name: fc.name, arguments: pieces[0] ?? "" } });
    for (const p of pieces.slice(1)) delta({ function_call: { arguments: p } });
  }
  chunks.push({ ...base, choices: [{ index: 0, delta: {}, finish_reason: choice.finish_reason ?? null }] });
  if (completion.usage) chunks.push({ ...base, choices: [], usage: completion.usage });
  return chunks;
}

/** Content as servers send it: a string, or parts whose texts join (streamed, always a string). */
function textOf(v: unknown): string {
  if (typeof v === "string") return v;
  if (Array.isArray(v))
    return v
      .map((p) =>
        p && typeof p === "object" && typeof (p as Json).text === "string" ? (p as Json).text : "",
      )
      .join("");
  if (v && typeof v === "object") {
    const t = (v as Json).text ?? (v as Json).content;
    return typeof t === "string" ? t : "";
  }
  return "";
}

/** The SSE body of a list of chunks, ending with `[DONE]`. */
export function sseBody(chunks: Json[]): string {
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")}data: [DONE]\n\n`;
}
