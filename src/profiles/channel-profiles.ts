import { HermesError } from "../core/errors.ts";
import {
  type ChannelProfile,
  DEFAULT_PROFILE_ID,
  type EffectiveProfile,
  effectiveProfile,
} from "./channel-profile.ts";
import type { ProfileAudit, ProfileChange, ProfileChanged, ProfileStore } from "./profile-store.ts";

/**
 * The channels' profiles, from `HERMES_PROFILES` when that file is configured (it wins: Slack shows
 * them but cannot change them) or else from Postgres, where admins change them with `/hermes profile set`.
 */
export interface ChannelProfiles {
  /** The profile a run in `channelId` gets: its own, else the default, else none. */
  forChannel(channelId: string | undefined): Promise<EffectiveProfile>;
  /** The profile kept under `id` (a channel or `default`), if any. */
  own(id: string): Promise<ChannelProfile | undefined>;
  /** The file profiles come from, when they do: then `set` is refused. */
  file?: string;
  /** Every profile (the default first, then channels in id order), at most `max`. */
  list(max: number): Promise<Array<{ id: string; profile: ChannelProfile }>>;
  /** Changes a profile and appends its audit row, together (`ProfileStore.set`); refused while `file` is set. */
  set(change: ProfileChange, audit: ProfileAudit): Promise<ProfileChanged>;
}

/** The sentence a change through Slack gets while the file is in charge. */
export function fileManagedSentence(file: string): string {
  return `Channel profiles are kept in the file ${file} (HERMES_PROFILES), which wins over Slack: change them there and restart Hermes.`;
}

/** How long a channel's stored profile is reused before it is read again (another process may change it). */
export const PROFILE_CACHE_MS = 5_000;
const MAX_CACHED = 5_000;

export function createChannelProfiles(o: {
  store: ProfileStore;
  /** Profiles from `HERMES_PROFILES`, with the file's path. */
  fromFile?: { file: string; profiles: ReadonlyMap<string, ChannelProfile> };
  now?: () => number;
}): ChannelProfiles {
  const { fromFile } = o;
  const now = o.now ?? Date.now;
  // A turn's profile comes from here, not from a statement of its own each turn: a change made in
  // this process applies at once (the cache is dropped), one made by another within PROFILE_CACHE_MS.
  const cached = new Map<string, { at: number; found: Promise<ReadonlyMap<string, ChannelProfile>> }>();
  const read = (ids: string[]): Promise<ReadonlyMap<string, ChannelProfile>> => {
    if (fromFile) return Promise.resolve(fromFile.profiles);
    const key = ids.join(" ");
    const hit = cached.get(key);
    if (hit && now() - hit.at < PROFILE_CACHE_MS) return hit.found;
    if (cached.size >= MAX_CACHED) cached.clear();
    const found = o.store.get(ids);
    cached.set(key, { at: now(), found });
    found.catch(() => cached.delete(key));
    return found;
  };
  return {
    ...(fromFile ? { file: fromFile.file } : {}),
    async forChannel(channelId) {
      const ids = channelId ? [channelId, DEFAULT_PROFILE_ID] : [DEFAULT_PROFILE_ID];
      const found = await read(ids);
      return effectiveProfile(channelId ? found.get(channelId) : undefined, found.get(DEFAULT_PROFILE_ID));
    },
    async own(id) {
      return (await read([id])).get(id);
    },
    async list(max) {
      if (!fromFile) return o.store.list(max);
      const rank = (id: string) => (id === DEFAULT_PROFILE_ID ? "" : id);
      return [...fromFile.profiles]
        .map(([id, profile]) => ({ id, profile }))
        .sort((a, b) => rank(a.id).localeCompare(rank(b.id)))
        .slice(0, max);
    },
    set(change, audit) {
      if (fromFile)
        return Promise.reject(new HermesError("permission_denied", fileManagedSentence(fromFile.file)));
      cached.clear();
      return o.store.set(change, audit).finally(() => cached.clear());
    },
  };
}
