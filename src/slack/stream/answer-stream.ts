import type { WebClient } from "@slack/web-api";
import type { TraceEvent } from "../../agent/run/trace.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { asPaced } from "../rate-limit/paced-web-client.ts";
import { createStreamedText } from "./streamed-text.ts";
import { type TaskUpdateChunk, taskChunkOf } from "./task-chunks.ts";

type Chunk = TaskUpdateChunk | { type: "markdown_text"; text: string };

/** Where a streamed answer goes, and who it is for (required by Slack outside DMs). */
export interface StreamTarget {
  channel: string;
  threadTs: string;
  recipient?: { userId?: string | undefined; teamId?: string | undefined } | undefined;
}

export interface AnswerStreamOptions extends StreamTarget {
  client: WebClient;
  logger: Logger;
  redactSecrets: (text: string) => string;
  /** The working message stops showing progress once the stream is up (it is removed then). */
  onStarted: (ts: string) => void;
  /** The start failed: the latest event the stream had taken is shown the usual way instead. */
  onUnavailable?: (latest: TraceEvent) => void;
  /** Least time between two appends of this message (appends are tier 4, ~100/min a workspace). */
  minIntervalMs?: number;
  /** How long a start may wait for its rate budget before the turn goes the post-and-update way. */
  startWaitMs?: number;
}

/** Text in one append, under Slack's 12,000 characters of `markdown_text` a call. */
const APPEND_TEXT_MAX = 10_000;

/** Appends that failed in a row before the stream stops growing (the final answer still replaces it). */
const MAX_FAILED_APPENDS = 3;

/** Slack's answer to an append or stop once it has ended a stream (after about five minutes). */
const ENDED_BY_SLACK = "message_not_in_streaming_state";

const slackErrorOf = (err: unknown): unknown => (err as { data?: { error?: unknown } }).data?.error;

/** The answer text a call's chunks carry. */
const textOf = (chunks: Chunk[]): string =>
  chunks.map((c) => (c.type === "markdown_text" ? c.text : "")).join("");

/**
 * One answer streamed into its thread with chat.startStream / appendStream / stopStream: the tool
 * calls as task cards, the answer text as it is written. Only for a model that streams (chosen per
 * message, from the run's own model events); started by the first event worth showing after that;
 * chunks are buffered and sent one append at a time, at most every `minIntervalMs`, so a fast model
 * never outruns Slack's rate tier. A start that fails for any reason (`unknown_method`, a missing
 * recipient, a rate limit, any error) makes the stream unavailable: the caller shows progress the
 * usual way, and the answer is posted as usual. Nothing here ever fails the turn.
 *
 * Slack ends a streaming message after about five minutes (`message_not_in_streaming_state`): the
 * chunks it refused, and those queued after them, start a new streamed message in the same thread at
 * once, and the stream goes on there. The earlier messages keep what they showed; `earlierText` is
 * the answer text they hold, so the final answer replaces only the last message with the rest. When
 * the new message cannot start, the stream stops growing and the answer is posted as usual from the
 * last message.
 */
export function createAnswerStream(o: AnswerStreamOptions) {
  const min = o.minIntervalMs ?? 1000;
  // "ended": Slack ended the last message and no new one could start (it still takes the answer).
  let state: "idle" | "starting" | "open" | "unavailable" | "broken" | "ended" = "idle";
  let ts: string | undefined;
  // The answer text shown in the current message, and in the ones Slack ended before it.
  let shown = "";
  let earlier = "";
  let queue: Chunk[] = [];
  const text = createStreamedText(o.redactSecrets);
  let started: Promise<void> | undefined;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let last = 0;
  let failures = 0;
  let closed = false;

  const enqueue = (chunk: Chunk) => {
    if (chunk.type === "markdown_text") {
      if (chunk.text.length > APPEND_TEXT_MAX) {
        for (let i = 0; i < chunk.text.length; i += APPEND_TEXT_MAX)
          enqueue({ type: "markdown_text", text: chunk.text.slice(i, i + APPEND_TEXT_MAX) });
        return;
      }
      const tail = queue.at(-1);
      if (tail?.type === "markdown_text" && tail.text.length + chunk.text.length <= APPEND_TEXT_MAX)
        tail.text += chunk.text;
      else queue.push({ ...chunk });
      return;
    }
    // A card's newer state replaces its queued one when no text was queued after it.
    const at = queue.findLastIndex((c) => c.type === "task_update" && c.id === chunk.id);
    if (at >= 0 && !queue.slice(at + 1).some((c) => c.type === "markdown_text")) queue[at] = chunk;
    else queue.push(chunk);
  };

  const userId = o.recipient?.userId;
  const teamId = o.recipient?.teamId;
  // Outside DMs Slack needs the recipient: without one, this message goes the usual way.
  const recipientMissing = !o.channel.startsWith("D") && (!userId || !teamId);
  let latest: TraceEvent | undefined;
  // Whether the run's model streams its answers: seen in its text as written, or told by its last
  // response. A model that answers in one piece (command mode, a server that refused or ignored
  // `stream`) never opens a stream: its turn keeps the post-and-update path.
  let modelStreams = false;

  /** Starts a streamed message in the thread with `chunks`; returns its ts. */
  const startMessage = async (chunks: Chunk[]): Promise<string> => {
    const args: Record<string, unknown> = {
      channel: o.channel,
      thread_ts: o.threadTs,
      ...(userId && teamId ? { recipient_user_id: userId, recipient_team_id: teamId } : {}),
      task_display_mode: "timeline",
      ...(chunks.length > 0 ? { chunks } : {}),
    };
    const paced = asPaced(o.client);
    const res = paced
      ? await paced.callOnce("chat.startStream", args, { maxWaitMs: o.startWaitMs ?? 2000 })
      : await o.client.apiCall("chat.startStream", args);
    const got = (res as { ts?: unknown }).ts;
    if (typeof got !== "string" || !got) throw new Error("chat.startStream answered without a ts");
    last = Date.now();
    return got;
  };

  const start = async () => {
    const chunks = queue;
    queue = [];
    try {
      ts = await startMessage(chunks);
      shown = textOf(chunks);
      state = "open";
      o.onStarted(ts);
      schedule();
    } catch (err) {
      state = "unavailable";
      queue = [];
      o.logger.info(
        { err: errorMessage(err), channel: o.channel },
        "answer not streamed: chat.startStream failed",
      );
      if (latest) o.onUnavailable?.(latest);
    }
  };

  /**
   * Slack ended the current message: `chunks` (not shown yet) start the next one. False when it could
   * not start: the stream then stops growing, and the ended message takes the answer.
   */
  const rollOver = async (chunks: Chunk[]): Promise<boolean> => {
    try {
      const next = await startMessage(chunks);
      o.logger.info({ channel: o.channel, ended: ts, ts: next }, "answer stream continued in a new message");
      earlier += shown;
      shown = textOf(chunks);
      ts = next;
      state = "open";
      return true;
    } catch (err) {
      state = "ended";
      o.logger.info(
        { err: errorMessage(err), channel: o.channel },
        "answer stream ended by Slack and not continued: the answer is posted as usual",
      );
      return false;
    }
  };

  const flush = () => {
    timer = undefined;
    if (state !== "open" || inFlight || queue.length === 0 || !ts) return;
    // One append carries at most APPEND_TEXT_MAX characters of text (Slack takes 12,000 a call).
    let size = 0;
    let take = 0;
    for (const c of queue) {
      const n = c.type === "markdown_text" ? c.text.length : 0;
      if (take > 0 && size + n > APPEND_TEXT_MAX) break;
      size += n;
      take++;
    }
    const chunks = queue.slice(0, take);
    queue = queue.slice(take);
    last = Date.now();
    inFlight = o.client
      .apiCall("chat.appendStream", { channel: o.channel, ts, chunks })
      .then(
        () => {
          failures = 0;
          shown += textOf(chunks);
        },
        async (err: unknown) => {
          if (slackErrorOf(err) === ENDED_BY_SLACK) {
            const rest = [...chunks, ...queue];
            queue = [];
            if (!(await rollOver(rest))) queue = rest;
            return;
          }
          failures++;
          // Kept for the next append (text in order): nothing written is lost to one failure.
          queue = [...chunks, ...queue];
          o.logger.debug({ err: errorMessage(err), failures }, "stream append failed");
          if (failures >= MAX_FAILED_APPENDS) state = "broken";
        },
      )
      .finally(() => {
        inFlight = undefined;
        if (!closed) schedule();
      });
  };

  function schedule() {
    if (state !== "open" || timer || inFlight || queue.length === 0 || closed) return;
    timer = setTimeout(flush, Math.max(0, last + min - Date.now()));
  }

  return {
    /** Takes a trace event; false when the stream does not show it (the working message may). */
    show(e: TraceEvent): boolean {
      if (e.event === "model.text") modelStreams = true;
      else if (e.event === "model.response") modelStreams = e.streamed === true;
      if (state === "idle" && recipientMissing) {
        state = "unavailable";
        o.logger.info({ channel: o.channel }, "answer not streamed: no recipient for a channel stream");
      }
      if (state === "unavailable" || closed) return false;
      if (state === "starting") latest = e;
      let chunk: Chunk | undefined = taskChunkOf(e);
      if (e.event === "model.text" && typeof e.delta === "string") {
        const added = text.add(e.delta);
        chunk = added ? { type: "markdown_text", text: added } : undefined;
      } else if (e.event === "model.retry") text.freeze();
      else if (e.event === "model.response" && Array.isArray(e.toolCalls) && e.toolCalls.length > 0)
        text.endStep();
      if (!chunk) return state !== "idle";
      enqueue(chunk);
      if (state === "idle") {
        // Kept until the model is seen streaming (a resumed run's approved call runs before its first
        // model call): the usual display shows it meanwhile, and the stream starts with it.
        if (!modelStreams) return false;
        latest = e;
        state = "starting";
        started = start();
      } else schedule();
      return true;
    },
    /** The streamed message, once started (undefined while not streaming). */
    get ts(): string | undefined {
      return state === "open" || state === "broken" || state === "ended" ? ts : undefined;
    },
    /** The answer text shown in the messages Slack ended before the last one ("" without a rollover). */
    get earlierText(): string {
      return earlier;
    },
    /**
     * Ends the stream: waits for a start or an append under way, sends the task cards still queued
     * (not the text: the final answer replaces it), then stops it with `blocks` at its bottom. Cards
     * refused because Slack ended the message go into a new one. Returns the last message's ts, or
     * undefined when nothing was streamed.
     */
    async stop(blocks: unknown[] | undefined): Promise<string | undefined> {
      await started;
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await inFlight;
      if (!ts) return undefined;
      if (state === "ended") return ts;
      if (state !== "open" && state !== "broken") return undefined;
      const cards = queue.filter((c) => c.type === "task_update");
      queue = [];
      const stopArgs = (chunks: Chunk[]) => ({
        channel: o.channel,
        ts,
        ...(chunks.length > 0 ? { chunks } : {}),
      });
      const stopWith = async (chunks: Chunk[]): Promise<"stopped" | "ended"> => {
        const withBlocks = blocks && blocks.length > 0 ? { ...stopArgs(chunks), blocks } : undefined;
        for (const args of withBlocks ? [withBlocks, stopArgs(chunks)] : [stopArgs(chunks)]) {
          try {
            await o.client.apiCall("chat.stopStream", args);
            return "stopped";
          } catch (err) {
            if (slackErrorOf(err) === ENDED_BY_SLACK) return "ended";
            // Blocks a workspace refuses must not leave the message streaming: stopped without them.
            o.logger.warn({ err: errorMessage(err), channel: o.channel }, "could not stop the answer stream");
          }
        }
        return "stopped";
      };
      // Already ended by Slack: the cards it refused start the next message, which takes the stop.
      if ((await stopWith(cards)) === "ended" && cards.length > 0 && (await rollOver(cards)))
        await stopWith([]);
      return ts;
    },
  };
}

export type AnswerStream = ReturnType<typeof createAnswerStream>;
