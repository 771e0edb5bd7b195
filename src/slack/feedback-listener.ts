import type { App, BlockAction, FeedbackButtonsAction } from "@slack/bolt";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { Storage } from "../storage.ts";
import type { IgnoredReason } from "../store/feedback-store.ts";
import { FEEDBACK_ACTION_ID, parseFeedbackValue } from "./feedback-block.ts";
import { checkFeedbackClick, type FeedbackCheckDeps } from "./feedback-click-check.ts";

/** What a refused click is told: the same sentence whatever the reason, so it reveals no run. */
export const FEEDBACK_REFUSED =
  "I did not record that rating: it does not belong to an answer of mine that you can see. Rate an answer with the 👍/👎 under it.";
/** What a click is told when Slack could not be asked about it. */
export const FEEDBACK_UNCHECKED =
  "I could not check that rating with Slack just now, so it was not recorded. Click it again in a moment.";

export type FeedbackListenerDeps = FeedbackCheckDeps & { storage: Pick<Storage, "feedback">; logger: Logger };

/**
 * 👍/👎 clicks under answers. Acked at once, then checked (`checkFeedbackClick`): the value names a
 * run, but only the run's own answer message, clicked by someone who could see it, may rate it.
 * An accepted click is stored with the run and audited as `run.feedback` in the same transaction.
 * The last value per person wins: the other button switches their rating; Slack sends nothing when a
 * selected button is clicked again to unselect it (SLACK-FACTS.md), so a rating is never taken back
 * on the app's side. A refused click stores nothing, is audited as `feedback.ignored` with its
 * reason, and the clicker gets one ephemeral sentence.
 */
export function registerFeedbackListener(app: App, s: FeedbackListenerDeps): void {
  app.action<BlockAction<FeedbackButtonsAction>>(FEEDBACK_ACTION_ID, async ({ ack, body, action }) => {
    await ack();
    const userId = body.user?.id;
    if (typeof userId !== "string" || !userId) {
      s.logger.warn({ actionId: FEEDBACK_ACTION_ID }, "feedback click without a user ignored");
      return;
    }
    const container = body.container;
    const onMessage = container?.type === "message" && !container.is_ephemeral;
    const channelId = container?.channel_id ?? body.channel?.id;
    const messageTs = onMessage ? (container?.message_ts ?? body.message?.ts) : undefined;
    const threadTs = body.message?.thread_ts ?? container?.thread_ts;
    const teamId = body.team?.id ?? body.user.team_id ?? null;
    const parsed = parseFeedbackValue(action.value);
    const log = s.logger.child({ runId: parsed?.runId, userId });
    const refuse = async (reason: IgnoredReason) => {
      // The value itself is not logged: a forged one could carry anything.
      log.warn({ reason, channelId, messageTs }, "feedback click refused");
      try {
        await s.storage.feedback.ignore({
          reason,
          userId,
          runId: parsed?.runId ?? null,
          value: parsed?.value ?? null,
          teamId,
          channelId: channelId ?? null,
          messageTs: messageTs ?? null,
        });
      } catch (err) {
        log.error({ err: errorMessage(err) }, "refused feedback click not audited");
      }
      if (!channelId) return;
      await s.slack.client.chat
        .postEphemeral({
          channel: channelId,
          user: userId,
          text: reason === "unchecked" ? FEEDBACK_UNCHECKED : FEEDBACK_REFUSED,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        })
        .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "could not send the ephemeral reply"));
    };
    try {
      if (!parsed) return await refuse("bad_value");
      if (body.channel?.id && container?.channel_id && body.channel.id !== container.channel_id)
        return await refuse("not_the_answer");
      const check = await checkFeedbackClick(s, { runId: parsed.runId, userId, channelId, messageTs });
      if (!check.ok) return await refuse(check.reason);
      const result = await s.storage.feedback.record({
        runId: parsed.runId,
        userId,
        value: parsed.value,
        teamId,
        channelId: channelId ?? null,
        messageTs: messageTs ?? null,
      });
      if (result.kind === "unknown_run") return await refuse("unknown_run");
      log.info({ value: result.value, previous: result.previous }, "feedback recorded");
    } catch (err) {
      log.error({ err: errorMessage(err) }, "feedback not recorded");
    }
  });
}
