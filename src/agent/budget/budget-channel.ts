/**
 * The channel whose daily token budget a turn draws on: none for a direct message (IDs starting with
 * `D`), which is one person's conversation with Hermes and already counts against that person's
 * budget; a DM charged as a channel would get the channel default on top and crowd the admins'
 * top-channels list with private conversations.
 */
export function budgetChannel(channelId: string | undefined): string | undefined {
  return channelId && !channelId.startsWith("D") ? channelId : undefined;
}
