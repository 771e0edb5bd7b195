import { randomUUID } from "node:crypto";
import { type TurnJobMeta, turnJobId } from "../../queue/jobs.ts";
import { sessionKey } from "../session-key.ts";
import { decodeAction, toolCallOf } from "./ticket-actions.ts";
import type { WorkObjectDeps } from "./work-object-deps.ts";

/**
 * A button of a ticket's detail panel was clicked: the call it stands for runs as a turn of the person
 * who clicked, written as the command `run update_ticket {…}`. So it takes the very path of that
 * request in a message: their level and tool lists, the tool's own rules (a member may only change
 * tickets they created or are assigned), approvals when the policy asks, and the audit log. The turn
 * runs in the thread the ticket was shown in (else in the person's DM with Hermes), under a line
 * saying what was chosen; the result is the thread's answer.
 */
export async function runTicketAction(
  s: WorkObjectDeps,
  /** `teamId`: the clicker's team (the turn runs there); absent, the bot's own. */
  click: { userId: string; actionId: string; value: string | undefined; teamId?: string | undefined },
): Promise<"queued" | "ignored"> {
  const target = decodeAction(click.value);
  const call = target ? toolCallOf(click.actionId, target) : undefined;
  if (!target || !call) return "ignored";
  const text = `<@${click.userId}> chose *${call.chosen}* on ticket #${target.id}.`;
  const post = (channel: string, threadTs?: string) =>
    s.slack.client.chat.postMessage({
      channel,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      text,
      unfurl_links: false,
      unfurl_media: false,
    });
  // The conversation the ticket was shown in; one Hermes cannot post in (an unfurl in a channel it is
  // not in) or none: the person's DM with Hermes.
  let posted = target.channel
    ? await post(target.channel, target.threadTs).catch(() => undefined)
    : undefined;
  let inShown = posted !== undefined;
  if (!posted) {
    const dm = (await s.slack.client.conversations.open({ users: click.userId })).channel?.id;
    if (!dm) throw new Error("no conversation to run the ticket action in");
    posted = await post(dm);
    inShown = false;
  }
  const channel = posted.channel ?? "";
  const messageTs = posted.ts ?? "";
  if (!channel || !messageTs) throw new Error("the ticket action's line was not posted");
  const threadTs = (inShown && target.threadTs) || messageTs;
  const teamId = click.teamId || s.slack.bot.teamId;
  const key = sessionKey({ teamId, channelId: channel, ts: threadTs });
  const eventId = `wo-${randomUUID()}`;
  await s.storage.events.claim(eventId, { sessionKey: key, staleAfterMs: 24 * 3600 * 1000 });
  const meta: TurnJobMeta = { inThread: false };
  await s.queue.enqueue(
    {
      type: "turn",
      sessionKey: key,
      teamId,
      channelId: channel,
      threadTs,
      userId: click.userId,
      text: `run update_ticket ${JSON.stringify(call.args)}`,
      eventId,
      messageTs,
      isDm: channel.startsWith("D"),
      meta,
    },
    { jobId: turnJobId(eventId) },
  );
  return "queued";
}
