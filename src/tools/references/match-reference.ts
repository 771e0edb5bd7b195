import type { SlackChannel, SlackUser, SlackUserGroup } from "../slack-port.ts";
import { peopleIndex } from "./name-index.ts";
import { nameKey } from "./name-key.ts";
import type { ParsedReference } from "./parse-reference.ts";

/** What the argument may name: a person, a channel, or either (a message's destination). */
export type ReferenceKind = "user" | "channel" | "recipient";
export type NameReference = Extract<ParsedReference, { name: string }>;

/** Which lists a written reference is looked up in. */
export interface Wants {
  user: boolean;
  channel: boolean;
  group: boolean;
}

export function wantsOf(ref: ParsedReference, kind: ReferenceKind, groups: boolean): Wants {
  const user = kind !== "channel" && ref.kind !== "channel_name";
  return { user, channel: kind !== "user" && ref.kind !== "user_name", group: groups && user };
}

export interface Hits {
  users: SlackUser[];
  channels: SlackChannel[];
  groups: SlackUserGroup[];
}

/** What the directory has loaded of each list, as a look-up reads it. */
export interface DirectoryLists {
  users: readonly SlackUser[];
  channels: readonly SlackChannel[];
  groups: readonly SlackUserGroup[];
}

/**
 * Who and what a name can be in the lists given. A handle is unique in Slack (people and user groups
 * share one namespace): written exactly, it wins over display and real names that share its key. A
 * private channel is found only by its exact name.
 */
export function findHits(ref: NameReference, wants: Wants, lists: DirectoryLists): Hits {
  const key = nameKey(ref.name);
  const handle = ref.name.normalize("NFKC").toLowerCase();
  const index = wants.user ? peopleIndex(lists.users) : undefined;
  const groups = wants.group
    ? lists.groups.filter(
        (g) => g.handle.toLowerCase() === handle || nameKey(g.handle) === key || nameKey(g.name) === key,
      )
    : [];
  const exactGroup = groups.filter((g) => g.handle.toLowerCase() === handle);
  const byHandle = index?.byHandle.get(handle);
  const channels = wants.channel
    ? lists.channels.filter((c) => (c.isPrivate ? c.name === handle : nameKey(c.name) === key))
    : [];
  if (byHandle) return { users: [byHandle], channels, groups: [] };
  if (exactGroup.length === 1) return { users: [], channels, groups: exactGroup };
  return { users: index?.byKey.get(key) ?? [], channels, groups };
}

export const hitCount = (h: Hits) => h.users.length + h.channels.length + h.groups.length;
