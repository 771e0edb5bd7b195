import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../core/logger.ts";
import type { SlackChannel, SlackUser, SlackUserGroup } from "../../tools/slack-port.ts";
import {
  type ApiChannel,
  type ApiUser,
  type ApiUserGroup,
  channelRecord,
  userGroupRecord,
  userRecord,
} from "./directory-records.ts";
import { IncrementalList, type IncrementalListOptions } from "./incremental-list.ts";
import { LoadSignal } from "./load-signal.ts";
import type { RelistSchedule } from "./relist-schedule.ts";

/** Slack's most per page for both lists: 100 pages for 20,000 people. */
const PAGE = 200;

export interface WorkspaceDirectory {
  users: IncrementalList<SlackUser>;
  channels: IncrementalList<SlackChannel>;
  userGroups: IncrementalList<SlackUserGroup>;
  /** Settles the next time any list loads a page, ends, fails a page or changes by an event. */
  loads(): Promise<void>;
  /** Asks Slack about one channel an event names (`conversations.info`) and keeps or drops it. */
  refreshChannel(id: string): Promise<void>;
  stop(): void;
}

export interface WorkspaceDirectoryOptions {
  relist?: RelistSchedule;
  /** First wait after a failed page (doubled each time, at most 5 minutes). */
  retryMs?: number;
  logger?: Logger;
  now?: () => number;
}

/**
 * Who and what names can refer to, from the Web API, loaded page by page in the background through
 * the bot's paced client (`users.list` and `conversations.list` are tier 2: 20 calls a minute, 200
 * per page, so a 20,000-person workspace takes about five minutes to load, and look-ups are served
 * from what is loaded meanwhile): `users.list`, `conversations.list` (public and private channels
 * the bot sees, archived ones left out) and `usergroups.list` (enabled groups, one call). Once
 * loaded, Slack's events keep the lists fresh (`directory-events.ts`); a full re-list runs only every
 * few hours (`relist`).
 */
export function createWorkspaceDirectory(
  client: WebClient,
  options: WorkspaceDirectoryOptions = {},
): WorkspaceDirectory {
  const signal = new LoadSignal();
  const listOptions = (method: string): IncrementalListOptions => ({
    method,
    onChange: () => signal.fire(),
    ...(options.relist ? { relist: options.relist } : {}),
    ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.now ? { now: options.now } : {}),
  });

  const users = new IncrementalList<SlackUser>(async (cursor) => {
    const r = await client.users.list({ limit: PAGE, ...(cursor ? { cursor } : {}) });
    return { items: records(r.members as ApiUser[] | undefined, userRecord), next: nextCursor(r) };
  }, listOptions("users.list"));

  const channels = new IncrementalList<SlackChannel>(async (cursor) => {
    const r = await client.conversations.list({
      types: "public_channel,private_channel",
      exclude_archived: true,
      limit: PAGE,
      ...(cursor ? { cursor } : {}),
    });
    return { items: records(r.channels as ApiChannel[] | undefined, channelRecord), next: nextCursor(r) };
  }, listOptions("conversations.list"));

  const userGroups = new IncrementalList<SlackUserGroup>(async () => {
    const r = await client.usergroups.list({});
    return { items: records(r.usergroups as ApiUserGroup[] | undefined, userGroupRecord), next: "" };
  }, listOptions("usergroups.list"));

  return {
    users,
    channels,
    userGroups,
    loads: () => signal.next(),
    async refreshChannel(id) {
      try {
        const c = (await client.conversations.info({ channel: id })).channel as ApiChannel | undefined;
        const record = c && !c.is_archived ? channelRecord(c) : undefined;
        if (record) channels.upsert(record);
        else channels.remove(id);
      } catch (err) {
        options.logger?.warn(
          { err, channel: id },
          "workspace directory: could not look up a changed channel",
        );
      }
    },
    stop() {
      users.stop();
      channels.stop();
      userGroups.stop();
    },
  };
}

function records<A, T>(items: A[] | undefined, record: (item: A) => T | undefined): T[] {
  const out: T[] = [];
  for (const item of items ?? []) {
    const r = record(item);
    if (r) out.push(r);
  }
  return out;
}

function nextCursor(r: { response_metadata?: { next_cursor?: string } }): string {
  return r.response_metadata?.next_cursor ?? "";
}
