import type { WebClient } from "@slack/web-api";
import type { TraceEvent } from "../../agent/run/trace.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { StatusDisplay } from "../../queue/turn-output.ts";

export interface AssistantStatusLine {
  status: string;
  loading_messages: string[];
}

/** What a thread's status line says while a turn runs (set by the listener before the worker starts). */
export const THINKING: AssistantStatusLine = {
  status: "is thinking…",
  loading_messages: ["Thinking…", "Reading your request…"],
};

/** The status a trace event becomes: the running tool by name, thinking between steps. */
export function statusOf(e: TraceEvent): AssistantStatusLine | undefined {
  if (e.event === "tool.start") {
    const tool = String(e.tool);
    return { status: `is running ${tool}…`, loading_messages: [`Running ${tool}…`] };
  }
  if (e.event === "model.fallback")
    return { status: "is thinking…", loading_messages: ["Switching to the fallback model…"] };
  if (e.event === "model.request" && e.step > 1)
    return { status: "is thinking…", loading_messages: ["Thinking…", "Reading the results…"] };
  return undefined;
}

/**
 * An assistant thread's status line (`assistant.threads.setStatus`) during a turn, updated at most
 * once per `minIntervalMs` (only the latest line is kept). Best effort, like the working message: a
 * failed update is dropped, never retried, so it cannot delay the answer (whose post clears it).
 */
export function createAssistantStatus(options: {
  client: WebClient;
  channel: string;
  threadTs: string;
  logger: Logger;
  minIntervalMs?: number;
}): StatusDisplay {
  const min = options.minIntervalMs ?? 1000;
  let last = 0;
  let pending: AssistantStatusLine | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let inFlight: Promise<unknown> = Promise.resolve();

  const set = (line: AssistantStatusLine) =>
    options.client.assistant.threads
      .setStatus({ channel_id: options.channel, thread_ts: options.threadTs, ...line })
      .catch((err: unknown) => options.logger.debug({ err: errorMessage(err) }, "assistant status dropped"));

  const send = (line: AssistantStatusLine) => {
    last = Date.now();
    inFlight = set(line);
  };

  const stop = async () => {
    closed = true;
    if (timer) clearTimeout(timer);
    timer = undefined;
    pending = undefined;
    await inFlight;
  };

  return {
    show(event) {
      const line = statusOf(event);
      if (closed || !line) return;
      const wait = last + min - Date.now();
      if (wait <= 0 && !timer) return send(line);
      pending = line;
      timer ??= setTimeout(
        () => {
          timer = undefined;
          if (!closed && pending) send(pending);
          pending = undefined;
        },
        Math.max(0, wait),
      );
    },
    close: stop,
    async clear() {
      await stop();
      await set({ status: "", loading_messages: [] });
    },
  };
}
