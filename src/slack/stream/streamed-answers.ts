import type { TurnResult } from "../../agent/run/runtime-types.ts";
import type { TraceEvent } from "../../agent/run/trace.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { ProgressDisplay, ReplyTarget, StatusDisplay } from "../../queue/turn-output.ts";
import { planAnswer } from "../answer-blocks.ts";
import { statusOf } from "../assistant/assistant-status.ts";
import { defuseBroadcasts } from "../blocks/slack-references.ts";
import {
  type AnswerPosting,
  answerMetadata,
  postAnswer,
  resultMarkdown,
  resultOptions,
} from "../deliver-result.ts";
import { feedbackBlock } from "../feedback-block.ts";
import {
  type AnswerStream,
  type AnswerStreamOptions,
  createAnswerStream,
  type StreamTarget,
} from "./answer-stream.ts";

/** HERMES_STREAMING, with how often one message may be appended to (tests go faster). */
export type StreamingSetting = "auto" | "off" | { minIntervalMs?: number };

/**
 * The turns' answer streams, by thread and working message: `progress` opens one beside the working
 * message (`statusLine` beside an assistant thread's status line, which has none), and the answer,
 * pause or failure of the same turn (its target names the same thread and working message) finishes
 * it. The working message is removed once the stream is up; the streamed message then takes its
 * place as the one the final answer replaces, so the final message is exactly what the
 * post-and-update path would have posted (same mrkdwn conversion, limits, file fallback).
 *
 * When Slack ended a stream and it went on in new messages (see `answer-stream.ts`), the earlier
 * messages keep the answer text they showed and the last one is replaced by the rest of the answer,
 * with the feedback buttons: the thread reads the whole answer once, in order. An answer that does
 * not go on from what was shown (a retried model call) goes whole into the last message.
 */
export function createStreamedAnswers(s: AnswerPosting, setting: StreamingSetting = "auto") {
  const options = typeof setting === "object" ? setting : {};
  const streams = new Map<string, AnswerStream>();
  // One turn of a thread runs at a time (its lock); two assistant threads of one DM may run at once.
  const key = (t: { channel: string; threadTs: string }) => `${t.channel} ${t.threadTs}`;

  /**
   * The target with the last streamed message in place of the working message (which is gone), and
   * the answer text earlier streamed messages of the turn show.
   */
  async function settleStream(
    target: ReplyTarget,
    blocks?: unknown[],
  ): Promise<{ target: ReplyTarget; earlierText: string }> {
    const k = key(target);
    const stream = streams.get(k);
    if (!stream) return { target, earlierText: "" };
    streams.delete(k);
    const ts = await stream.stop(blocks);
    return ts
      ? { target: { ...target, placeholderTs: ts }, earlierText: stream.earlierText }
      : { target, earlierText: "" };
  }
  const settle = async (target: ReplyTarget) => (await settleStream(target)).target;

  /**
   * A turn's stream, taken in by its first event: a job waiting for its thread's lock (made before it
   * runs) must not take the place of the turn still running there, whose answer settles its own.
   */
  function open(
    o: StreamTarget & { logger: Logger },
    hooks: Pick<AnswerStreamOptions, "onStarted" | "onUnavailable">,
  ): (e: TraceEvent) => boolean {
    const stream = createAnswerStream({
      ...o,
      client: s.client,
      // Broadcasts are defused while streaming too, as in the final answer (`planAnswer`).
      redactSecrets: (t) => defuseBroadcasts(s.redactor.redactSecrets(t)),
      ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
      ...hooks,
    });
    let taken = false;
    return (e) => {
      if (!taken) streams.set(key(o), stream);
      taken = true;
      return stream.show(e);
    };
  }

  return {
    /**
     * Wraps a turn's progress display: events go to the stream once it is up (or starting), to the
     * working message otherwise. A turn without thread or requester keeps the working message only.
     */
    progress(
      o: StreamTarget & { logger: Logger },
      fallback: ProgressDisplay & { discard(): Promise<void> },
    ): ProgressDisplay {
      const show = open(o, {
        onUnavailable: (latest) => fallback.show(latest),
        onStarted: (ts) => {
          o.logger.debug({ channel: o.channel, ts }, "answer streaming");
          // The working message is replaced by the stream: no more progress in it, then removed.
          void fallback.discard();
        },
      });
      return {
        show: (e) => {
          if (!show(e)) fallback.show(e);
        },
        close: () => fallback.close(),
        discard: () => fallback.discard(),
        ...(fallback.workingTs ? { workingTs: fallback.workingTs } : {}),
      };
    },

    /**
     * An assistant thread's progress: its status line names the running step all along (as without a
     * stream), and the answer streams into the thread beside it when the model streams. Slack clears
     * the line when the app posts in the thread, so the latest line is set again once the stream is up.
     */
    statusLine(o: StreamTarget & { logger: Logger }, status: StatusDisplay): StatusDisplay {
      let shown: TraceEvent | undefined;
      const show = open(o, {
        onStarted: (ts) => {
          o.logger.debug({ channel: o.channel, ts }, "answer streaming in the assistant thread");
          if (shown) status.show(shown);
        },
      });
      return {
        show: (e) => {
          show(e);
          if (statusOf(e)) shown = e;
          status.show(e);
        },
        close: () => status.close(),
        clear: () => status.clear(),
      };
    },

    /**
     * A finished turn: its answer replaces the streamed message, with the feedback buttons under it
     * and its run named in the metadata.
     */
    async showResult(result: TurnResult, target: ReplyTarget): Promise<boolean> {
      if (!streams.has(key(target))) return false;
      const markdown = resultMarkdown(result);
      const rated = resultOptions(s, result);
      const feedback = rated.feedbackRunId ? [feedbackBlock(rated.feedbackRunId)] : [];
      const { target: settled, earlierText } = await settleStream(target, feedback);
      if (settled === target) return false;
      const redacted = s.redactor.redactSecrets(markdown);
      const tail = earlierText && redacted.startsWith(earlierText) ? redacted.slice(earlierText.length) : "";
      const rest = /\S/.test(tail) ? tail : redacted;
      const plan = planAnswer(rest);
      const only = plan.kind === "messages" && plan.messages.length === 1 ? plan.messages[0] : undefined;
      if (only && settled.placeholderTs) {
        try {
          await s.client.chat.update({
            channel: settled.channel,
            ts: settled.placeholderTs,
            text: only.text,
            blocks: [...only.blocks, ...feedback],
            metadata: answerMetadata(result.runId, rated),
          });
          return true;
        } catch (err) {
          s.logger.warn(
            { err: errorMessage(err), runId: result.runId },
            "streamed answer not finalized in place",
          );
        }
      }
      // Longer than one message, a file, or an update that failed: the usual path, from the streamed message.
      await postAnswer(s, rest, settled, rated);
      return true;
    },

    /** Anything else shown in the turn's place (a pause's waiting line, a failure): the stream ends first. */
    settle: (target: ReplyTarget) => settle(target),
  };
}

export type StreamedAnswers = ReturnType<typeof createStreamedAnswers>;
