import type { WebClient } from "@slack/web-api";
import type { Logger } from "../core/logger.ts";
import { asPaced } from "./rate-limit/paced-web-client.ts";

/**
 * The "working…" message of a turn, updated with progress at most once per `minIntervalMs`, the first
 * time `minIntervalMs` after it was opened: a turn done within that time never updates it (its answer
 * replaces it anyway), which saves a rate-limited `chat.update` per fast turn.
 * Progress is best effort: an update that fails (rate limit, anything) is dropped, never retried,
 * so it cannot delay the answer that replaces it. With a paced client, an update still waiting for
 * its budget is replaced by a newer one, and cancelled when the message is closed.
 */
export function createProgressMessage(options: {
  client: WebClient;
  channel: string;
  ts: string;
  logger: Logger;
  minIntervalMs?: number;
}) {
  const min = options.minIntervalMs ?? 1000;
  let last = Date.now();
  let pending: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let inFlight: Promise<unknown> = Promise.resolve();

  const send = (text: string) => {
    last = Date.now();
    inFlight = options.client.chat
      .update({ channel: options.channel, ts: options.ts, text, blocks: [] })
      .catch((err: unknown) => options.logger.debug({ err: String(err) }, "progress update dropped"));
  };

  return {
    /** Shows `text` now, or at the next free slot (only the latest text is kept). */
    update(text: string) {
      if (closed) return;
      const wait = last + min - Date.now();
      if (wait <= 0 && !timer) return send(text);
      pending = text;
      timer ??= setTimeout(
        () => {
          timer = undefined;
          if (!closed && pending !== undefined) send(pending);
          pending = undefined;
        },
        Math.max(0, wait),
      );
    },
    /** No more progress: drops anything queued and waits for an update already sent. */
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
      asPaced(options.client)?.cancelProgress("chat.update", { channel: options.channel, ts: options.ts });
      await inFlight;
    },
  };
}
