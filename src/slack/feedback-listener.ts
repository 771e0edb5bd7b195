import type { App, BlockAction, FeedbackButtonsAction } from "@slack/bolt";
import { errorMessage } from "../errors.ts";
import type { Logger } from "../logger.ts";
import type { Storage } from "../store/storage.ts";
import { FEEDBACK_ACTION_ID, parseFeedbackValue } from "./feedback-block.ts";

/**
 * 👍/👎 clicks under answers. Acked at once, then stored with the run and audited as `run.feedback` in
 * the same transaction. The last value per person wins: the other button switches their rating;
 * Slack sends nothing when a selected button is clicked again to unselect it (SLACK-FACTS.md), so a
 * rating is never taken back on the app's side.
 * A value that names no run Hermes knows is only logged: nothing is stored and nobody is told, since
 * the buttons themselves show the click.
 */
export function registerFeedbackListener(app: App, s: Pick<Storage, "feedback"> & { logger: Logger }): void {
  app.action<BlockAction<FeedbackButtonsAction>>(FEEDBACK_ACTION_ID, async ({ ack, body, action }) => {
    await ack();
    const userId = body.user?.id;
    const parsed = parseFeedbackValue(action.value);
    if (typeof userId !== "string" || !userId || !parsed) {
      s.logger.warn(
        // The value itself is not logged: a forged one could carry anything.
        { actionId: FEEDBACK_ACTION_ID, userId, valueLength: String(action.value ?? "").length },
        "feedback click without a user or a run ignored",
      );
      return;
    }
    const log = s.logger.child({ runId: parsed.runId, userId });
    try {
      const result = await s.feedback.record({
        runId: parsed.runId,
        userId,
        value: parsed.value,
        teamId: body.team?.id ?? body.user.team_id ?? null,
        channelId: body.channel?.id ?? body.container?.channel_id ?? null,
        messageTs: body.message?.ts ?? body.container?.message_ts ?? null,
      });
      if (result.kind === "unknown_run")
        log.warn({ value: parsed.value }, "feedback for an unknown run ignored");
      else log.info({ value: result.value, previous: result.previous }, "feedback recorded");
    } catch (err) {
      log.error({ err: errorMessage(err) }, "feedback not recorded");
    }
  });
}
