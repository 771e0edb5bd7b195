import type { SlackUser } from "../slack-port.ts";
import { nameKey } from "./name-key.ts";

/** Active people by handle and by every name key, with the keys for suggestions. */
export interface PeopleIndex {
  keyed: Array<{ user: SlackUser; keys: string[] }>;
  byKey: Map<string, SlackUser[]>;
  byHandle: Map<string, SlackUser>;
}

/**
 * The index of a list of people, memoized per list: the directory hands out the same array until it
 * changes (a page lands, an event), so a burst of look-ups normalizes a big workspace's names once.
 */
const indexes = new WeakMap<readonly SlackUser[], PeopleIndex>();
export function peopleIndex(users: readonly SlackUser[]): PeopleIndex {
  let index = indexes.get(users);
  if (!index) {
    index = { keyed: [], byKey: new Map(), byHandle: new Map() };
    for (const user of users) {
      if (user.deleted) continue;
      const keys = [...new Set(userKeys(user))];
      index.keyed.push({ user, keys });
      index.byHandle.set(user.name.toLowerCase(), user);
      for (const key of keys) {
        const same = index.byKey.get(key);
        if (same) same.push(user);
        else index.byKey.set(key, [user]);
      }
    }
    indexes.set(users, index);
  }
  return index;
}

function userKeys(u: SlackUser): string[] {
  return [u.name, u.displayName, u.realName].filter((n): n is string => Boolean(n)).map(nameKey);
}
