import type { Config } from "../config.ts";
import { resolveLevel } from "../policy/levels.ts";
import type { TurnJobMeta } from "../queue/jobs.ts";
import { turnJobId } from "../queue/jobs.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import { scheduledPostHeader } from "../schedules/format-schedules.ts";
import type { ScheduleFire } from "../schedules/scheduler.ts";
import type { Storage } from "../storage.ts";
import { sessionKey } from "./session-key.ts";
import type { SlackOutput } from "./slack-output.ts";

/**
 * A schedule fired (exactly once across replicas): post its header in the channel and run the prompt
 * as a turn of the schedule's owner, with the owner's current level, in a thread under the header.
 * An owner who is no longer an admin does not get their schedule run.
 */
export async function fireSchedule(
  s: {
    config: Config;
    storage: Pick<Storage, "users" | "events">;
    slack: Pick<SlackOutput, "client" | "bot">;
    queue: TurnQueue;
  },
  fire: ScheduleFire,
): Promise<void> {
  const { schedule } = fire;
  const stored = await s.storage.users.get(schedule.ownerId);
  const level = resolveLevel({
    userId: schedule.ownerId,
    admins: s.config.env.HERMES_ADMINS,
    stored: stored?.level ?? null,
  });
  if (level !== "admin") {
    await s.slack.client.chat.postMessage({
      channel: schedule.channelId,
      text: `Schedule ${schedule.id} was skipped: its owner <@${schedule.ownerId}> is no longer an admin.`,
    });
    return;
  }
  const header = await s.slack.client.chat.postMessage({
    channel: schedule.channelId,
    text: `${scheduledPostHeader(fire)}\n> ${schedule.prompt}`,
    unfurl_links: false,
    unfurl_media: false,
  });
  const threadTs = header.ts ?? "";
  // The schedule's own team; one from before team scoping, the bot's.
  const teamId = schedule.teamId || s.slack.bot.teamId;
  const key = sessionKey({ teamId, channelId: schedule.channelId, ts: threadTs });
  const eventId = `sched-${schedule.id}-${Math.floor(fire.fireAt.getTime() / 1000)}`;
  await s.storage.events.claim(eventId, { sessionKey: key, staleAfterMs: 24 * 3600 * 1000 });
  // The worker shows the run's progress in a working message of its own, as for a mention.
  const meta: TurnJobMeta = { inThread: false };
  await s.queue.enqueue(
    {
      type: "turn",
      sessionKey: key,
      teamId,
      channelId: schedule.channelId,
      threadTs,
      userId: schedule.ownerId,
      text: schedule.prompt,
      eventId,
      messageTs: threadTs,
      isDm: false,
      meta,
    },
    { jobId: turnJobId(eventId) },
  );
}
