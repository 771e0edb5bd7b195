import { apiUserGroup } from "./methods/usergroups.ts";
import type { SandboxUserGroup } from "./user-groups.ts";
import type { SandboxChannel, SandboxUser } from "./workspace-types.ts";

/**
 * The events Slack sends when the directory changes (people, channels, user groups), shaped as
 * Slack sends them; deliver one with the events sender's `event`.
 */

const eventTs = () => (Date.now() / 1000).toFixed(6);

/** `user_change` (a profile changed, a person deactivated) or `team_join` (a new person). */
export function userEvent(type: "user_change" | "team_join", user: SandboxUser): Record<string, unknown> {
  return {
    type,
    user: { ...structuredClone(user), is_restricted: false, is_ultra_restricted: false, is_app_user: false },
    cache_ts: Math.floor(Date.now() / 1000),
    event_ts: eventTs(),
  };
}

/** `channel_created` and `channel_rename` carry the channel; a private one's rename is `group_rename`. */
export function channelEvent(
  type: "channel_created" | "channel_rename" | "group_rename",
  channel: SandboxChannel,
  creator?: string,
): Record<string, unknown> {
  return {
    type,
    channel: {
      id: channel.id,
      name: channel.name,
      name_normalized: channel.name,
      created: channel.created,
      is_channel: !channel.is_private,
      is_private: channel.is_private,
      ...(creator ? { creator } : {}),
    },
    event_ts: eventTs(),
  };
}

/** `channel_archive`, `channel_unarchive`, `channel_deleted` (and `group_*`): the channel's id only. */
export function channelIdEvent(
  type:
    | "channel_archive"
    | "channel_unarchive"
    | "channel_deleted"
    | "group_archive"
    | "group_unarchive"
    | "group_deleted",
  channelId: string,
  user?: string,
): Record<string, unknown> {
  return { type, channel: channelId, ...(user ? { user } : {}), event_ts: eventTs() };
}

/** `subteam_created` or `subteam_updated` (renamed, members changed, disabled: `date_delete` set). */
export function subteamEvent(
  type: "subteam_created" | "subteam_updated",
  group: SandboxUserGroup,
): Record<string, unknown> {
  return { type, subteam: apiUserGroup(group), event_ts: eventTs() };
}
