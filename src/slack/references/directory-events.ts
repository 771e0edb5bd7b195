import type { App } from "@slack/bolt";
import type { Logger } from "../../core/logger.ts";
import {
  type ApiChannel,
  type ApiUser,
  type ApiUserGroup,
  channelRecord,
  userGroupRecord,
  userRecord,
} from "./directory-records.ts";
import type { WorkspaceDirectory } from "./workspace-directory.ts";

type Handler = (event: Record<string, unknown>, directory: WorkspaceDirectory) => void | Promise<void>;

const upsertUser: Handler = (event, d) => {
  const user = userRecord((event.user ?? {}) as ApiUser);
  if (user) d.users.upsert(user);
};

/** A rename carries the new name; a private channel keeps being private. */
const renameChannel: Handler = (event, d) => {
  const c = (event.channel ?? {}) as ApiChannel;
  if (!c.id || !c.name) return;
  const name = c.name;
  const known = d.channels.get(c.id);
  if (known) d.channels.update(c.id, (kept) => ({ ...kept, name }));
  else {
    const record = channelRecord(c);
    if (record) d.channels.upsert(record);
  }
};

const createdChannel: Handler = (event, d) => {
  const record = channelRecord((event.channel ?? {}) as ApiChannel);
  if (record) d.channels.upsert(record);
};

const removeChannel: Handler = (event, d) => {
  if (typeof event.channel === "string") d.channels.remove(event.channel);
};

/** Unarchived: Slack's event names only the id; one `conversations.info` says the rest. */
const unarchiveChannel: Handler = (event, d) =>
  typeof event.channel === "string" ? d.refreshChannel(event.channel) : undefined;

const upsertGroup: Handler = (event, d) => {
  const g = (event.subteam ?? {}) as ApiUserGroup;
  if (!g.id) return;
  const record = userGroupRecord(g);
  if (record) d.userGroups.upsert(record);
  else d.userGroups.remove(g.id); // disabled
};

/** The directory events Hermes subscribes to (manifest.yml `bot_events`) and what each changes. */
export const DIRECTORY_EVENTS: Readonly<Record<string, Handler>> = {
  user_change: upsertUser,
  team_join: upsertUser,
  channel_created: createdChannel,
  channel_rename: renameChannel,
  group_rename: renameChannel,
  channel_archive: removeChannel,
  group_archive: removeChannel,
  channel_deleted: removeChannel,
  group_deleted: removeChannel,
  channel_unarchive: unarchiveChannel,
  group_unarchive: unarchiveChannel,
  subteam_created: upsertGroup,
  subteam_updated: upsertGroup,
};

/**
 * Keeps the workspace directory fresh from Slack's events instead of listing the workspace again:
 * a changed or new person is replaced or added, a created or renamed channel too, an archived or
 * deleted one dropped, an unarchived one looked up, a user group added, changed or (disabled)
 * dropped. These events start no turn (`classifyEvent` ignores them); they reach Bolt's listeners
 * after the ack as every event does.
 */
export function registerDirectoryEvents(app: App, directory: WorkspaceDirectory, logger?: Logger): void {
  for (const [type, handle] of Object.entries(DIRECTORY_EVENTS)) {
    app.event(type, async ({ event }) => {
      try {
        await handle(event as unknown as Record<string, unknown>, directory);
      } catch (err) {
        logger?.warn({ err, type }, "workspace directory: could not apply an event");
      }
    });
  }
}
