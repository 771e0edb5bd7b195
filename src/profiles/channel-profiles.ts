import { HermesError } from "../core/errors.ts";
import { tenantKey } from "../core/tenant.ts";
import {
  type ChannelProfile,
  DEFAULT_PROFILE_ID,
  type EffectiveProfile,
  effectiveProfile,
} from "./channel-profile.ts";
import type { ProfileAudit, ProfileChange, ProfileChanged, ProfileStore } from "./profile-store.ts";

/**
 * The channels' profiles, from `HERMES_PROFILES` when that file is configured (it wins: Slack shows
 * them but cannot change them) or else from Postgres, where admins change them with `/hermes profile set`
 * or the App Home's modal. Kept per tenant (`core/tenant.ts`: the Slack team, else the org, else '').
 */
export interface ChannelProfiles {
  /** The profile a run in `channelId` of `teamId` gets: its own, else the default, else none. */
  forChannel(channelId: string | undefined, teamId?: string): Promise<EffectiveProfile>;
  /** The profile kept under `id` (a channel or `default`) of `teamId`, if any. */
  own(id: string, teamId?: string): Promise<ChannelProfile | undefined>;
  /** The file profiles come from, when they do: then `set` is refused. */
  file?: string;
  /** Every profile of `teamId` (the default first, then channels in id order), at most `max`. */
  list(max: number, teamId?: string): Promise<Array<{ id: string; profile: ChannelProfile }>>;
  /**
   * Changes a profile of `teamId` and appends its audit row, together (`ProfileStore.set`); refused
   * while `file` is set.
   */
  set(change: Omit<ProfileChange, "team">, audit: ProfileAudit, teamId?: string): Promise<ProfileChanged>;
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
  /** Profiles from `HERMES_PROFILES`, with the file's path (the same in every team). */
  fromFile?: { file: string; profiles: ReadonlyMap<string, ChannelProfile> };
  now?: () => number;
}): ChannelProfiles {
  const { fromFile } = o;
  const now = o.now ?? Date.now;
  // A turn's profile comes from here, not from a statement of its own each turn: a change made in
  // this process applies at once (the cache is dropped), one made by another within PROFILE_CACHE_MS.
  // Keyed by team and channel: two workspaces' channels never share an entry.
  const cached = new Map<string, { at: number; found: Promise<ReadonlyMap<string, ChannelProfile>> }>();
  const read = (team: string, ids: string[]): Promise<ReadonlyMap<string, ChannelProfile>> => {
    if (fromFile) return Promise.resolve(fromFile.profiles);
    const key = `${team}\u0000${ids.join(" ")}`;
    const hit = cached.get(key);
    if (hit && now() - hit.at < PROFILE_CACHE_MS) return hit.found;
    if (cached.size >= MAX_CACHED) cached.clear();
    const found = o.store.get(ids, team);
    cached.set(key, { at: now(), found });
    found.catch(() => cached.delete(key));
    return found;
  };
  return {
    ...(fromFile ? { file: fromFile.file } : {}),
    async forChannel(channelId, teamId) {
      const ids = channelId ? [channelId, DEFAULT_PROFILE_ID] : [DEFAULT_PROFILE_ID];
      const found = await read(tenantKey(teamId), ids);
      return effectiveProfile(channelId ? found.get(channelId) : undefined, found.get(DEFAULT_PROFILE_ID));
    },
    async own(id, teamId) {
      return (await read(tenantKey(teamId), [id])).get(id);
    },
    async list(max, teamId) {
      if (!fromFile) return o.store.list(max, tenantKey(teamId));
      const rank = (id: string) => (id === DEFAULT_PROFILE_ID ? "" : id);
      return [...fromFile.profiles]
        .map(([id, profile]) => ({ id, profile }))
        .sort((a, b) => rank(a.id).localeCompare(rank(b.id)))
        .slice(0, max);
    },
    set(change, audit, teamId) {
      if (fromFile)
        return Promise.reject(new HermesError("permission_denied", fileManagedSentence(fromFile.file)));
      cached.clear();
      return o.store.set({ ...change, team: tenantKey(teamId) }, audit).finally(() => cached.clear());
    },
  };
}
