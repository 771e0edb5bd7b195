import type { WebClient } from "@slack/web-api";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import { createProgressMessage } from "./progress-message.ts";
import { asPaced } from "./rate-limit/paced-web-client.ts";

export const WORKING_TEXT = ":hourglass_flowing_sand: Working on it…";

/** A turn's "working…" message: progress while it runs, removed once its answer is posted below it. */
export interface WorkingMessage {
  /** Shows a progress line (only the latest one is kept while the message is not up yet). */
  show(text: string): void;
  /** No more progress: a post still waiting for its budget is dropped; one in flight is waited for. */
  close(): Promise<void>;
  /** The message's ts once it is up (after `close`: final); undefined when it never went out. */
  ts(): string | undefined;
  /** Closes it and removes the message (the answer streams in a message of its own). Never throws. */
  discard(): Promise<void>;
}

/**
 * The working message of a turn, posted by the worker as the turn starts, best effort and never
 * waited for: with the progress client it goes only when its channel's post budget has room beyond
 * what answers need (Slack allows about one message per second per channel), so in a busy channel
 * answers go first and a turn whose answer is ready before its working message went out never shows
 * one (the post is dropped, the answer posted). A working message that went out late shows the
 * latest progress line instead of the generic one. `ts` is a message already posted (a schedule's).
 */
export function openWorkingMessage(o: {
  client: WebClient;
  channel: string;
  threadTs: string;
  logger: Logger;
  ts?: string | undefined;
  /** The first line (default `WORKING_TEXT`). */
  text?: string | undefined;
  minIntervalMs?: number;
}): WorkingMessage {
  let ts = o.ts;
  let latest: string | undefined;
  let closed = false;
  let progress: ReturnType<typeof createProgressMessage> | undefined;
  const track = (at: string) => {
    ts = at;
    progress = createProgressMessage({
      client: o.client,
      channel: o.channel,
      ts: at,
      logger: o.logger,
      ...(o.minIntervalMs === undefined ? {} : { minIntervalMs: o.minIntervalMs }),
    });
  };
  const args = { channel: o.channel, thread_ts: o.threadTs };
  let posting: Promise<void> = Promise.resolve();
  if (ts) track(ts);
  else {
    posting = o.client.chat.postMessage({ ...args, text: o.text ?? WORKING_TEXT }).then(
      (r) => {
        if (!r.ts) return;
        track(r.ts);
        // A line shown while the post waited goes in as the first update (the message is up now).
        if (latest !== undefined && !closed) progress?.update(latest);
      },
      (err: unknown) => o.logger.debug({ err: errorMessage(err) }, "working message not posted"),
    );
  }

  const close = async () => {
    closed = true;
    if (!progress) asPaced(o.client)?.cancelProgress("chat.postMessage", args);
    await posting;
    await progress?.close();
  };
  return {
    show(text) {
      if (closed) return;
      latest = text;
      progress?.update(text);
    },
    close,
    ts: () => ts,
    async discard() {
      await close();
      const at = ts;
      ts = undefined;
      if (!at) return;
      await o.client.chat
        .delete({ channel: o.channel, ts: at })
        .catch((err: unknown) => o.logger.debug({ err: errorMessage(err) }, "working message not removed"));
    },
  };
}
