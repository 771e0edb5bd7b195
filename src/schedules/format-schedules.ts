import { Cron } from "croner";
import type { Schedule } from "./schedule-store.ts";
import type { ScheduleFire } from "./scheduler.ts";

const PROMPT_PREVIEW_CHARS = 200;

/** The `/hermes schedule list` answer (Slack mrkdwn). */
export function formatScheduleList(list: readonly Schedule[], now: Date = new Date()): string {
  if (list.length === 0) {
    return 'No schedules yet. Add one: `/hermes schedule add "0 9 * * 1-5" #ops "summarize urgent open tickets"`';
  }
  return list
    .map((s) => {
      const next = s.enabled ? nextRunText(s, now) : "disabled";
      const prompt =
        s.prompt.length > PROMPT_PREVIEW_CHARS ? `${s.prompt.slice(0, PROMPT_PREVIEW_CHARS)}…` : s.prompt;
      return `*${s.id}* \`${s.cron}\` (${s.timezone}) in <#${s.channelId}> by <@${s.ownerId}> — ${next}\n> ${prompt.replace(/\n/g, "\n> ")}`;
    })
    .join("\n");
}

/** The line a scheduled post starts with; a catch-up says which run it stands in for. */
export function scheduledPostHeader({ schedule, fireAt, catchUp }: ScheduleFire): string {
  const when = localTime(fireAt, schedule.timezone);
  return catchUp
    ? `_Schedule ${schedule.id} — catching up on the ${when} run, missed while Hermes was down._`
    : `_Schedule ${schedule.id} — ${when}_`;
}

function nextRunText(s: Schedule, now: Date): string {
  try {
    const next = new Cron(s.cron, { timezone: s.timezone, paused: true }).nextRun(now);
    return next ? `next ${localTime(next, s.timezone)}` : "never fires again";
  } catch {
    return "invalid pattern";
  }
}

function localTime(date: Date, timezone: string): string {
  const text = new Intl.DateTimeFormat("en-CA", {
    timeZone: timezone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(date);
  return `${text.replace(",", "")} ${timezone}`;
}
