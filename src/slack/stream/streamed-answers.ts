import type { TurnResult } from "../../agent/runtime-types.ts";
import { errorMessage } from "../../errors.ts";
import type { Logger } from "../../logger.ts";
import type { ProgressDisplay, ReplyTarget } from "../../queue/turn-output.ts";
import { planAnswer } from "../answer-blocks.ts";
import { type AnswerPosting, postAnswer, ratedBy, resultMarkdown } from "../deliver-result.ts";
import { feedbackBlock } from "../feedback-block.ts";
import { runMetadata } from "../run-metadata.ts";
import { type AnswerStream, createAnswerStream, type StreamTarget } from "./answer-stream.ts";

/**
 * The turns' answer streams, by working message: `progress` opens one beside the working message,
 * and the answer, pause or failure of the same turn (its target names the same working message)
 * finishes it. The working message is removed once the stream is up; the streamed message then takes
 * its place as the one the final answer replaces, so the final message is exactly what the
 * post-and-update path would have posted (same mrkdwn conversion, limits, file fallback).
 */
/** HERMES_STREAMING, with how often one message may be appended to (tests go faster). */
export type StreamingSetting = "auto" | "off" | { minIntervalMs?: number };

export function createStreamedAnswers(s: AnswerPosting, setting: StreamingSetting = "auto") {
  const options = typeof setting === "object" ? setting : {};
  const streams = new Map<string, AnswerStream>();
  const key = (channel: string, ts: string | undefined) => `${channel} ${ts ?? "-"}`;

  /** The target with the streamed message in place of the working message (which is gone). */
  async function settle(target: ReplyTarget, blocks?: unknown[]): Promise<ReplyTarget> {
    const k = key(target.channel, target.placeholderTs);
    const stream = streams.get(k);
    if (!stream) return target;
    streams.delete(k);
    const ts = await stream.stop(blocks);
    return ts ? { ...target, placeholderTs: ts } : target;
  }

  return {
    /**
     * Wraps a turn's progress display: events go to the stream once it is up (or starting), to the
     * working message otherwise. A turn without thread or requester keeps the working message only.
     */
    progress(
      o: StreamTarget & { placeholderTs: string; logger: Logger },
      fallback: ProgressDisplay,
    ): ProgressDisplay {
      const k = key(o.channel, o.placeholderTs);
      const stream = createAnswerStream({
        ...o,
        client: s.client,
        redactSecrets: (t) => s.redactor.redactSecrets(t),
        ...(options.minIntervalMs === undefined ? {} : { minIntervalMs: options.minIntervalMs }),
        onUnavailable: (latest) => fallback.show(latest),
        onStarted: (ts) => {
          o.logger.debug({ channel: o.channel, ts }, "answer streaming");
          // The working message is replaced by the stream: no more progress in it, then removed.
          void fallback
            .close()
            .then(() => s.client.chat.delete({ channel: o.channel, ts: o.placeholderTs }))
            .catch((err: unknown) =>
              o.logger.debug({ err: errorMessage(err) }, "working message not removed"),
            );
        },
      });
      streams.set(k, stream);
      return {
        show: (e) => {
          if (!stream.show(e)) fallback.show(e);
        },
        close: () => fallback.close(),
      };
    },

    /**
     * A finished turn: its answer replaces the streamed message, with the feedback buttons under it
     * and its run named in the metadata.
     */
    async showResult(result: TurnResult, target: ReplyTarget): Promise<boolean> {
      if (!streams.has(key(target.channel, target.placeholderTs))) return false;
      const markdown = resultMarkdown(result);
      const rated = ratedBy(result);
      const feedback = rated.feedbackRunId ? [feedbackBlock(rated.feedbackRunId)] : [];
      const settled = await settle(target, feedback);
      if (settled === target) return false;
      const plan = planAnswer(s.redactor.redactSecrets(markdown));
      const only = plan.kind === "messages" && plan.messages.length === 1 ? plan.messages[0] : undefined;
      if (only && settled.placeholderTs) {
        try {
          await s.client.chat.update({
            channel: settled.channel,
            ts: settled.placeholderTs,
            text: only.text,
            blocks: [...only.blocks, ...feedback],
            metadata: runMetadata(result.runId),
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
      await postAnswer(s, markdown, settled, rated);
      return true;
    },

    /** Anything else shown in the turn's place (a pause's waiting line, a failure): the stream ends first. */
    settle: (target: ReplyTarget) => settle(target),
  };
}

export type StreamedAnswers = ReturnType<typeof createStreamedAnswers>;
