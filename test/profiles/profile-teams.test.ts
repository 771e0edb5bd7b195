import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { profileForAudit } from "../../src/profiles/channel-profile.ts";
import { createChannelProfiles } from "../../src/profiles/channel-profiles.ts";
import { createProfileStore } from "../../src/profiles/profile-store.ts";
import { adoptLegacyRows } from "../../src/store/adopt-legacy-rows.ts";
import { startTestHermes, type TestHermes } from "../helpers/hermes-harness.ts";
import { testPool } from "../helpers/pg.ts";

/**
 * Profiles per Slack team, on the real `channel_profiles` table (migration 0016): two workspaces'
 * profiles for the same channel id never mix, in the store or in the 5-second cache; rows written
 * before profiles were kept per team (team_id '') are adopted at start by the single-token workspace.
 */
describe("channel profiles per Slack team", () => {
  let t: TestHermes;
  let db: pg.Pool;

  beforeAll(async () => {
    t = await startTestHermes();
    db = testPool({ connectionString: t.db.url, max: 2 });
  }, 180_000);
  afterAll(async () => {
    await db?.end();
    await t?.stop();
  });

  const audit = (channel: string) => () => ({
    action: "profile.changed" as const,
    tool: "/hermes",
    args: { channel },
  });

  it("two teams' profiles for one channel id stay apart; a single-workspace Hermes adopts the '' rows", async () => {
    const { storage } = t.hermes.services;
    const store = createProfileStore({ db: storage.db.db, audit: storage.audit });
    const scoped = createChannelProfiles({ store });
    await scoped.set(
      { id: "C0SAME", by: "U0ADMIN", next: () => ({ model: "model-of-t1" }) },
      audit("C0SAME"),
      "T0ONE",
    );
    await scoped.set(
      { id: "C0SAME", by: "U0ADMIN", next: () => ({ model: "model-of-t2", streaming: false }) },
      audit("C0SAME"),
      "T0TWO",
    );
    await scoped.set(
      { id: "default", by: "U0ADMIN", next: () => ({ level: "viewer" }) },
      audit("default"),
      "T0TWO",
    );
    // Read twice each, within the cache's time: each team keeps its own entry.
    for (let i = 0; i < 2; i++) {
      expect(await scoped.forChannel("C0SAME", "T0ONE")).toEqual({
        profile: { model: "model-of-t1" },
        source: "channel",
      });
      expect(await scoped.forChannel("C0SAME", "T0TWO")).toEqual({
        profile: { model: "model-of-t2", streaming: false },
        source: "channel",
      });
      expect(await scoped.forChannel("C0OTHER", "T0TWO")).toEqual({
        profile: { level: "viewer" },
        source: "default",
      });
      expect(await scoped.forChannel("C0OTHER", "T0ONE")).toEqual({ profile: {}, source: "none" });
    }
    expect((await scoped.list(10, "T0TWO")).map((p) => p.id)).toEqual(["default", "C0SAME"]);
    expect((await scoped.list(10, "T0ONE")).map((p) => p.id)).toEqual(["C0SAME"]);
    const rows = await db.query(
      "SELECT team_id, channel_id, model FROM channel_profiles ORDER BY team_id, channel_id",
    );
    expect(rows.rows).toEqual([
      { team_id: "T0ONE", channel_id: "C0SAME", model: "model-of-t1" },
      { team_id: "T0TWO", channel_id: "C0SAME", model: "model-of-t2" },
      { team_id: "T0TWO", channel_id: "default", model: null },
    ]);

    // A row as written before teams (no team_id): adopted by the single-token workspace at start.
    await db.query(
      "INSERT INTO channel_profiles (channel_id, level, tokens_per_day) VALUES ('C0SAME', 'viewer', 5000)",
    );
    expect((await scoped.forChannel("C0NEW", "T0001")).source).toBe("none");
    expect(await adoptLegacyRows(storage.db.db, "T0001")).toEqual({ adopted: 1 });
    expect(await adoptLegacyRows(storage.db.db, "T0001")).toEqual({ adopted: 0 });
    const single = storage.profiles!;
    const own = await single.forChannel("C0SAME", "T0001");
    expect(own).toEqual({ profile: { level: "viewer", tokensPerDay: 5000 }, source: "channel" });
    expect(profileForAudit(own.profile)).toMatchObject({
      level: "viewer",
      tokens_per_day: 5000,
      model: null,
    });
    // The other teams' own stay theirs.
    expect((await scoped.forChannel("C0SAME", "T0ONE")).profile.model).toBe("model-of-t1");
    // The same (team, channel) twice is refused by the primary key.
    await expect(
      db.query("INSERT INTO channel_profiles (team_id, channel_id) VALUES ('T0ONE', 'C0SAME')"),
    ).rejects.toThrow(/duplicate key/);
  });
});
