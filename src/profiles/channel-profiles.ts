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

export function createChannelProfiles(o: {
  store: ProfileStore;
  /** Profiles from `HERMES_PROFILES`, with the file's path. */
  fromFile?: { file: string; profiles: ReadonlyMap<string, ChannelProfile> };
}): ChannelProfiles {
  const { fromFile } = o;
  const read = async (ids: string[]): Promise<ReadonlyMap<string, ChannelProfile>> =>
    fromFile ? fromFile.profiles : o.store.get(ids);
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
      return o.store.set(change, audit);
    },
  };
}
