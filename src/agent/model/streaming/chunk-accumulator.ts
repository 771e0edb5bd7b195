import type { RawAssistantMessage } from "../normalize-response.ts";

/** One streamed chunk of a chat completion, as servers really send it (loosely typed on purpose). */
export interface RawChunk {
  model?: unknown;
  choices?: Array<{
    index?: number;
    delta?: {
      content?: unknown;
      reasoning_content?: unknown;
      reasoning?: unknown;
      thinking?: unknown;
      tool_calls?: unknown;
      function_call?: unknown;
    };
    finish_reason?: unknown;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } | null;
}

interface CallParts {
  id?: unknown;
  type?: unknown;
  function: { name?: unknown; arguments?: unknown };
}

/**
 * Builds, from a streamed completion's chunks, the assistant message the server would have sent
 * unstreamed: content and reasoning concatenated, tool calls merged by index (the id and name as
 * sent, argument text appended: the SDK's own accumulation), the last finish reason, the usage chunk.
 * The result goes through the same `normalizeAssistantMessage` as an unstreamed answer.
 */
export function createChunkAccumulator() {
  let content: string | undefined;
  const reasoning: Record<"reasoning_content" | "reasoning" | "thinking", string | undefined> = {
    reasoning_content: undefined,
    reasoning: undefined,
    thinking: undefined,
  };
  const calls: CallParts[] = [];
  const byIndex = new Map<number, CallParts>();
  let functionCall: { name?: unknown; arguments?: unknown } | undefined;
  let finish: unknown;
  let finished = false;
  let model: string | undefined;
  let usage: RawChunk["usage"];
  let chars = 0;

  const appendArgs = (target: { arguments?: unknown }, args: unknown) => {
    if (args === undefined || args === null) return;
    if (typeof args === "string") chars += args.length;
    // Arguments sent as an object (some servers do) cannot be appended: kept as sent, like unstreamed.
    if (typeof args === "string" && (target.arguments === undefined || typeof target.arguments === "string"))
      target.arguments = `${target.arguments ?? ""}${args}`;
    else target.arguments = args;
  };

  return {
    /** Takes one chunk in; returns the answer text it added (before any filtering). */
    add(chunk: RawChunk): string {
      if (typeof chunk.model === "string" && chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      let text = "";
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        const d = choice.delta ?? {};
        if (typeof d.content === "string" && d.content) {
          chars += d.content.length;
          content = (content ?? "") + d.content;
          text += d.content;
        } else if (typeof d.content === "string") content ??= "";
        for (const key of ["reasoning_content", "reasoning", "thinking"] as const) {
          const r = d[key];
          if (typeof r !== "string") continue;
          chars += r.length;
          reasoning[key] = (reasoning[key] ?? "") + r;
        }
        if (Array.isArray(d.tool_calls)) {
          for (const raw of d.tool_calls) {
            const t = (raw ?? {}) as {
              index?: unknown;
              id?: unknown;
              type?: unknown;
              function?: { name?: unknown; arguments?: unknown };
            };
            const index = typeof t.index === "number" ? t.index : undefined;
            let call = index === undefined ? undefined : byIndex.get(index);
            // A server that sends no index starts a call with each id and continues the last one otherwise.
            if (!call && index === undefined && !t.id && calls.length > 0) call = calls.at(-1);
            if (!call) {
              call = { function: {} };
              calls.push(call);
              if (index !== undefined) byIndex.set(index, call);
            }
            if (typeof t.id === "string" && t.id) call.id = t.id;
            if (t.type !== undefined) call.type = t.type;
            const fn = t.function;
            if (fn) {
              if (typeof fn.name === "string" && fn.name) call.function.name = fn.name;
              else if (fn.name !== undefined && fn.name !== null && call.function.name === undefined)
                call.function.name = fn.name;
              appendArgs(call.function, fn.arguments);
            }
          }
        }
        if (d.function_call && typeof d.function_call === "object") {
          const fc = d.function_call as { name?: unknown; arguments?: unknown };
          functionCall ??= {};
          if (typeof fc.name === "string" && fc.name) functionCall.name = fc.name;
          appendArgs(functionCall, fc.arguments);
        }
        if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
          finish = choice.finish_reason;
          finished = true;
        }
      }
      return text;
    },
    /** Whether a choice said why it ended (a stream cut off before that is not a whole answer). */
    get finished() {
      return finished;
    },
    /** Characters taken in so far: answer text, reasoning and call arguments. */
    get chars() {
      return chars;
    },
    /** Whether a native tool call has started (its text is never answer text). */
    get hasCalls() {
      return calls.length > 0 || functionCall !== undefined;
    },
    result(): { message: RawAssistantMessage; finish: unknown; model?: string; usage: RawChunk["usage"] } {
      const message: RawAssistantMessage & Record<string, unknown> = { content: content ?? null };
      for (const [key, value] of Object.entries(reasoning)) if (value !== undefined) message[key] = value;
      if (calls.length > 0) message.tool_calls = calls;
      if (functionCall) message.function_call = functionCall;
      return { message, finish, ...(model ? { model } : {}), usage };
    },
  };
}
