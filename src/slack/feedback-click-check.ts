import type { WebClient } from "@slack/web-api";
import type { FeedbackStore, IgnoredReason } from "../store/feedback-store.ts";
import type { SlackPort } from "../tools/slack-port.ts";
import { RUN_METADATA_TYPE } from "./run-metadata.ts";
import type { BotIdentity } from "./slack-output.ts";

export interface FeedbackCheckDeps {
  storage: { feedback: Pick<FeedbackStore, "runPlace"> };
  slack: { client: WebClient; slack: Pick<SlackPort, "isMember">; bot: BotIdentity };
}

/** A click as Slack delivered it: who, the run its value names, and the message it was made on. */
export interface FeedbackClickOn {
  runId: string;
  userId: string;
  /** The conversation and ts of the clicked message (the payload's container); absent off a message. */
  channelId?: string | undefined;
  messageTs?: string | undefined;
}

export type FeedbackCheck = { ok: true } | { ok: false; reason: Exclude<IgnoredReason, "bad_value"> };

/** Slack's answers meaning "there is no such message for the bot to see", not "Slack is down". */
const NOT_THERE = new Set(["thread_not_found", "channel_not_found", "not_in_channel", "message_not_found"]);

/**
 * Whether a 👍/👎 click may rate the run its value names. The value alone is never trusted:
 * 1. the run must be one Hermes recorded, and the click made in the conversation the run's record
 *    names;
 * 2. the clicked message must be the run's answer: in the run's thread, posted by this bot, its
 *    message metadata naming that run (only the posting app can write it), as Slack itself returns
 *    the message (`conversations.replies`), not as the payload describes it;
 * 3. the clicker must have been able to see it: the requester, or, outside a DM, a member of the
 *    conversation (`conversations.members`, as the tools' membership check asks). A DM or an
 *    assistant thread is its requester's alone.
 * Slack not answering is `unchecked`: nothing is stored on a guess.
 */
export async function checkFeedbackClick(
  s: FeedbackCheckDeps,
  click: FeedbackClickOn,
): Promise<FeedbackCheck> {
  const run = await s.storage.feedback.runPlace(click.runId);
  if (!run) return { ok: false, reason: "unknown_run" };
  if (!click.channelId || !click.messageTs || !run.channelId || !run.threadTs)
    return { ok: false, reason: "not_the_answer" };
  if (click.channelId !== run.channelId) return { ok: false, reason: "not_the_answer" };
  const answer = await isRunAnswer(s.slack, click.runId, run.channelId, run.threadTs, click.messageTs);
  if (answer !== true) return { ok: false, reason: answer === false ? "not_the_answer" : "unchecked" };
  if (run.userId === click.userId) return { ok: true };
  if (isDirect(run.channelId)) return { ok: false, reason: "not_visible" };
  try {
    return (await s.slack.slack.isMember(run.channelId, click.userId))
      ? { ok: true }
      : { ok: false, reason: "not_visible" };
  } catch {
    return { ok: false, reason: "unchecked" };
  }
}

/** A DM with the bot (an assistant thread is one too): only its person sees it. */
const isDirect = (channelId: string) => channelId.startsWith("D");

/** true: the message is the run's answer; false: it is not; undefined: Slack could not be asked. */
async function isRunAnswer(
  s: Pick<FeedbackCheckDeps["slack"], "client" | "bot">,
  runId: string,
  channel: string,
  threadTs: string,
  messageTs: string,
): Promise<boolean | undefined> {
  let messages: Array<Record<string, unknown>>;
  try {
    const r = await s.client.conversations.replies({
      channel,
      ts: threadTs,
      oldest: messageTs,
      latest: messageTs,
      inclusive: true,
      include_all_metadata: true,
      limit: 2,
    });
    messages = (r.messages ?? []) as Array<Record<string, unknown>>;
  } catch (err) {
    const code = (err as { data?: { error?: unknown } }).data?.error;
    return typeof code === "string" && NOT_THERE.has(code) ? false : undefined;
  }
  const message = messages.find((m) => m.ts === messageTs);
  if (!message) return false;
  const byBot =
    message.user === s.bot.userId || (s.bot.botId !== undefined && message.bot_id === s.bot.botId);
  const metadata = message.metadata as
    | { event_type?: unknown; event_payload?: { run_id?: unknown } }
    | undefined;
  return byBot && metadata?.event_type === RUN_METADATA_TYPE && metadata.event_payload?.run_id === runId;
}
