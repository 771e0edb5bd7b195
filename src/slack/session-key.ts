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

export function parseSessionKey(
  key: string,
): { teamId: string; channelId: string; threadTs: string } | undefined {
  const m = /^([^:]+):([^:]+):(\d+\.\d+)$/.exec(key);
  return m ? { teamId: m[1]!, channelId: m[2]!, threadTs: m[3]! } : undefined;
}
