import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../core/logger.ts";
import type { SlackChannel, SlackUser } from "../../tools/slack-port.ts";
import { type CachedList, cachedList } from "./cached-list.ts";

export interface WorkspaceDirectory {
  listUsers: CachedList<SlackUser>;
  listChannels: CachedList<SlackChannel>;
}

/** Slack's most per page for both lists; fewer requests for big workspaces. */
const PAGE = 200;

/**
 * Who and what names can refer to, from the Web API: `users.list` and `conversations.list` (public
 * and private channels the bot sees, archived ones left out), every page followed by its cursor.
 * Each list is cached for `ttlMs` with one fetch in flight at a time, so a burst of look-ups costs
 * one request per page, not one per look-up; only the first fetch is waited for: afterwards a stale
 * list is served while one refresh (every page, at Slack's pace) runs behind it, and a refresh
 * that fails keeps the list it was replacing.
 */
export function createWorkspaceDirectory(
  client: WebClient,
  options: { ttlMs?: number; now?: () => number; logger?: Logger } = {},
): WorkspaceDirectory {
  const cache = (list: string) => ({
    ttlMs: options.ttlMs ?? 60_000,
    ...(options.now ? { now: options.now } : {}),
    onRefreshError: (err: unknown) =>
      options.logger?.warn({ err, list }, "workspace directory: refresh failed; the previous list stays"),
  });
  return {
    listUsers: cachedList(() => fetchUsers(client), cache("users.list")),
    listChannels: cachedList(() => fetchChannels(client), cache("conversations.list")),
  };
}

async function fetchUsers(client: WebClient): Promise<SlackUser[]> {
  const users: SlackUser[] = [];
  let cursor: string | undefined;
  do {
    const r = await client.users.list({ limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const u of r.members ?? []) {
      if (!u.id) continue;
      const displayName = u.profile?.display_name || undefined;
      const realName = u.real_name ?? u.profile?.real_name;
      users.push({
        id: u.id,
        name: u.name ?? u.id,
        ...(realName ? { realName } : {}),
        ...(displayName ? { displayName } : {}),
        ...(u.tz ? { tz: u.tz } : {}),
        isBot: Boolean(u.is_bot),
        deleted: Boolean(u.deleted),
      });
    }
    cursor = r.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return users;
}

async function fetchChannels(client: WebClient): Promise<SlackChannel[]> {
  const channels: SlackChannel[] = [];
  let cursor: string | undefined;
  do {
    const r = await client.conversations.list({
      types: "public_channel,private_channel",
      exclude_archived: true,
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
    });
    for (const c of r.channels ?? []) {
      if (c.id && c.name) channels.push({ id: c.id, name: c.name, isPrivate: Boolean(c.is_private) });
    }
    cursor = r.response_metadata?.next_cursor || undefined;
  } while (cursor);
  return channels;
}
