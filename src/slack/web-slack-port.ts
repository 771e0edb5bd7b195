import type { types } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { HermesError } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { SlackChannelInfo, SlackPort, SlackUser } from "../tools/slack-port.ts";
import { type CachedByIdOptions, cachedById } from "./references/cached-by-id.ts";
import { userRecord } from "./references/directory-records.ts";
import {
  createWorkspaceDirectory,
  type WorkspaceDirectory,
  type WorkspaceDirectoryOptions,
} from "./references/workspace-directory.ts";

/**
 * `SlackPort` over the Web API. User look-ups are cached briefly (they are asked per turn) unless
 * asked `fresh`; membership never is: it decides where a message may go, and a member removed a
 * moment ago must not still be able to approve a post to the channel. The people, channels and
 * user groups names can refer to come from the workspace directory (`directory`: loaded page by page
 * in the background, kept fresh by events; `registerDirectoryEvents` feeds it); an id someone wrote
 * is checked on its own (`userById`, `channelById`) and cached per id as `idCache` says.
 */
export function createWebSlackPort(
  client: WebClient,
  options: {
    cacheMs?: number;
    directory?: WorkspaceDirectoryOptions;
    idCache?: CachedByIdOptions;
    logger?: Logger;
  } = {},
): SlackPort & { directory: WorkspaceDirectory } {
  const cacheMs = options.cacheMs ?? 60_000;
  const directory = createWorkspaceDirectory(client, {
    ...options.directory,
    ...(options.logger ? { logger: options.logger } : {}),
  });

  /** `users.info`; undefined when Slack says there is no such user. */
  async function fetchUser(userId: string): Promise<SlackUser | undefined> {
    try {
      const u = (await client.users.info({ user: userId })).user;
      return u ? userRecord(u) : undefined;
    } catch (err) {
      if (slackError(err) === "user_not_found") return undefined;
      throw err;
    }
  }

  /** `conversations.info`; undefined when Slack does not show the channel to the bot. */
  async function fetchChannel(channelId: string): Promise<SlackChannelInfo | undefined> {
    try {
      const c = (await client.conversations.info({ channel: channelId })).channel;
      if (!c?.id) return undefined;
      return {
        id: c.id,
        name: c.name ?? "",
        isPrivate: Boolean(c.is_private),
        topic: c.topic?.value ?? "",
        purpose: c.purpose?.value ?? "",
      };
    } catch (err) {
      if (slackError(err) === "channel_not_found") return undefined;
      throw err;
    }
  }

  // Ids people and models write are checked one call each, never by listing a big workspace.
  const userById = cachedById(fetchUser, options.idCache);
  // The requester's profile, asked each turn: kept briefly, a `fresh` read asks Slack again.
  const requester = cachedById(fetchUser, { ttlMs: cacheMs, absentTtlMs: cacheMs });
  const channelById = cachedById(fetchChannel, options.idCache);

  async function dmChannel(userId: string): Promise<string> {
    const r = await client.conversations.open({ users: userId });
    const id = r.channel?.id;
    if (!id) throw new HermesError("bad_request", `Could not open a direct message with <@${userId}>.`);
    return id;
  }

  return {
    async postMessage({ channel, text, threadTs, blocks }) {
      const target = /^[UW]/.test(channel) ? await dmChannel(channel) : channel;
      const r = await client.chat.postMessage({
        channel: target,
        text,
        thread_ts: threadTs,
        ...(blocks ? { blocks: blocks as types.KnownBlock[] } : {}),
        unfurl_links: false,
        unfurl_media: false,
      });
      return { channel: r.channel ?? target, ts: r.ts ?? "" };
    },

    async uploadFile({ channel, threadTs, filename, title, content, initialComment }) {
      // Slack types a thread reply and a channel post apart: one of the two, never thread_ts undefined.
      const destination = threadTs ? { channel_id: channel, thread_ts: threadTs } : { channel_id: channel };
      const r = await client.filesUploadV2({
        ...destination,
        filename,
        title: title ?? filename,
        file: typeof content === "string" ? Buffer.from(content) : content,
        ...(initialComment ? { initial_comment: initialComment } : {}),
      });
      const id = r.files?.[0]?.files?.[0]?.id;
      return { fileId: id ?? "" };
    },

    async isMember(channelId, userId) {
      let cursor: string | undefined;
      do {
        const r = await client.conversations.members({ channel: channelId, cursor, limit: 1000 });
        if (r.members?.includes(userId)) return true;
        cursor = r.response_metadata?.next_cursor || undefined;
      } while (cursor);
      return false;
    },

    getUser: requester,

    getChannel: fetchChannel,
    userById,
    channelById,
    loadedUsers: () => directory.users.read(),
    loadedChannels: () => directory.channels.read(),
    loadedUserGroups: () => directory.userGroups.read(),
    directoryLoads: () => directory.loads(),
    directory,
  };
}

/** The `error` of a Slack Web API error (`user_not_found`, `ratelimited`, …), if it is one. */
function slackError(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("data" in err)) return undefined;
  const data = err.data;
  return typeof data === "object" && data !== null && "error" in data && typeof data.error === "string"
    ? data.error
    : undefined;
}
