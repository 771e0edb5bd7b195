import { describe, expect, it } from "vitest";
import type { ChannelProfile } from "../../src/profiles/channel-profile.ts";
import { createChannelProfiles, PROFILE_CACHE_MS } from "../../src/profiles/channel-profiles.ts";
import type { ProfileStore } from "../../src/profiles/profile-store.ts";

/** A store counting its reads; `set` replaces the channel's profile. */
function countingStore(initial: Record<string, ChannelProfile>) {
  const rows = new Map(Object.entries(initial));
  const reads: string[][] = [];
  const store: ProfileStore = {
    async get(ids) {
      reads.push([...ids]);
      return new Map(ids.flatMap((id) => (rows.has(id) ? [[id, rows.get(id)!] as const] : [])));
    },
    async set(change) {
      const before = rows.get(change.id);
      const after = change.next(before);
      if (after) rows.set(change.id, after);
      else rows.delete(change.id);
      return { before, after: after ?? null };
    },
    async list() {
      return [];
    },
  };
  return { store, reads };
}

describe("a channel's profile between turns", () => {
  it("is read once per channel within the cache time, again after it, and at once after a change here", async () => {
    let clock = 1_000_000;
    const { store, reads } = countingStore({ C1: { tools: ["get_current_time"] } });
    const profiles = createChannelProfiles({ store, now: () => clock });
    for (let i = 0; i < 5; i++)
      expect((await profiles.forChannel("C1")).profile.tools).toEqual(["get_current_time"]);
    expect(reads).toHaveLength(1);
    clock += PROFILE_CACHE_MS;
    await profiles.forChannel("C1");
    expect(reads).toHaveLength(2);
    await profiles.set({ id: "C1", by: "U0ADMIN", next: () => ({ tools: ["create_ticket"] }) }, () => ({
      action: "profile.changed",
      tool: "/hermes",
    }));
    expect((await profiles.forChannel("C1")).profile.tools).toEqual(["create_ticket"]);
    expect(reads).toHaveLength(3);
  });
});
