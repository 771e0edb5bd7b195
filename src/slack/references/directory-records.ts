import type { SlackChannel, SlackUser, SlackUserGroup } from "../../tools/slack-port.ts";

/** The fields of a Slack user object the directory keeps (`users.list`, `users.info`, `user_change`). */
export interface ApiUser {
  id?: string;
  name?: string;
  real_name?: string;
  tz?: string;
  is_bot?: boolean;
  deleted?: boolean;
  profile?: { display_name?: string; real_name?: string };
}

export interface ApiChannel {
  id?: string;
  name?: string;
  is_private?: boolean;
  is_group?: boolean;
  is_archived?: boolean;
  is_im?: boolean;
  is_mpim?: boolean;
}

export interface ApiUserGroup {
  id?: string;
  handle?: string;
  name?: string;
  date_delete?: number;
}

export function userRecord(u: ApiUser): SlackUser | undefined {
  if (!u.id) return undefined;
  const displayName = u.profile?.display_name || undefined;
  const realName = u.real_name || u.profile?.real_name || undefined;
  return {
    id: u.id,
    name: u.name ?? u.id,
    ...(realName ? { realName } : {}),
    ...(displayName ? { displayName } : {}),
    ...(u.tz ? { tz: u.tz } : {}),
    isBot: Boolean(u.is_bot),
    deleted: Boolean(u.deleted),
  };
}

/** A named channel; undefined for DMs, group DMs and anything without a name. */
export function channelRecord(c: ApiChannel): SlackChannel | undefined {
  if (!c.id || !c.name || c.is_im || c.is_mpim) return undefined;
  return { id: c.id, name: c.name, isPrivate: Boolean(c.is_private ?? c.is_group) };
}

/** An enabled user group; undefined for a disabled one (`date_delete` set). */
export function userGroupRecord(g: ApiUserGroup): SlackUserGroup | undefined {
  if (!g.id || !g.handle || g.date_delete) return undefined;
  return { id: g.id, handle: g.handle, name: g.name ?? g.handle };
}
