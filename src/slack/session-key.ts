/**
 * One Slack thread is one agent session: `team:channel:thread_ts`. A message that is not in a thread
 * starts one, so its own `ts` is the thread (the bot answers in that thread).
 */
export function sessionKey({
  teamId,
  channelId,
  threadTs,
  ts,
}: {
  teamId: string;
  channelId: string;
  threadTs?: string;
  ts: string;
}): string {
  return `${teamId}:${channelId}:${threadTs ?? ts}`;
}
