import { LEGACY_TENANT } from "../core/tenant.ts";
import type { AuditEvent, AuditLog } from "../store/audit.ts";
import type { Database } from "../store/db.ts";
import { and, asc, eq, inArray, sql } from "../store/drizzle.ts";
import { channelProfiles } from "../store/schema.ts";
import { withStorageErrors } from "../store/storage-errors.ts";
import { type ChannelProfile, DEFAULT_PROFILE_ID } from "./channel-profile.ts";

/** Profiles kept in Postgres (`channel_profiles`), changed through Slack, per Slack team. */
export interface ProfileStore {
  /** The profiles of these ids (a channel and `default`) of `team` that exist, by id. */
  get(ids: readonly string[], team?: string): Promise<Map<string, ChannelProfile>>;
  set(change: ProfileChange, audit: ProfileAudit): Promise<ProfileChanged>;
  /** Every profile of `team`, the default first and then channels in id order, at most `max`. */
  list(max: number, team?: string): Promise<Array<{ id: string; profile: ChannelProfile }>>;
}

/**
 * A change to the profile of `id`: `next` makes the new profile (null: remove it) from the one it
 * replaces, read under the row's lock, so two admins changing fields of one profile at once both land.
 */
export interface ProfileChange {
  id: string;
  /** The tenant whose profile it is (`core/tenant.ts`; `LEGACY_TENANT` when absent). */
  team?: string;
  next: (before: ChannelProfile | undefined) => ChannelProfile | null;
  by: string;
}

/** The audit row of a change, built from the profile before and after, appended in its transaction. */
export type ProfileAudit = (before: ChannelProfile | undefined, after: ChannelProfile | null) => AuditEvent;

export interface ProfileChanged {
  before: ChannelProfile | undefined;
  after: ChannelProfile | null;
}

type Row = typeof channelProfiles.$inferSelect;

function profileOf(row: Row): ChannelProfile {
  return {
    ...(row.instructions !== null ? { instructions: row.instructions } : {}),
    ...(row.toolAllow !== null ? { tools: row.toolAllow } : {}),
    ...(row.level !== null ? { level: row.level } : {}),
    ...(row.model !== null ? { model: row.model } : {}),
    ...(row.fallbackModel !== null ? { fallbackModel: row.fallbackModel } : {}),
    ...(row.tokensPerDay !== null ? { tokensPerDay: Number(row.tokensPerDay) } : {}),
    ...(row.streaming !== null ? { streaming: row.streaming } : {}),
  };
}

export function createProfileStore(o: { db: Database; audit: AuditLog }): ProfileStore {
  const { db } = o;
  const ofTeam = (team: string | undefined) => eq(channelProfiles.teamId, team ?? LEGACY_TENANT);
  return withStorageErrors(
    {
      async get(ids: readonly string[], team?: string) {
        const rows = await db
          .select()
          .from(channelProfiles)
          .where(and(ofTeam(team), inArray(channelProfiles.channelId, [...ids])));
        return new Map(rows.map((row) => [row.channelId, profileOf(row)]));
      },
      async list(max: number, team?: string) {
        const rows = await db
          .select()
          .from(channelProfiles)
          .where(ofTeam(team))
          .orderBy(sql`${channelProfiles.channelId} <> ${DEFAULT_PROFILE_ID}`, asc(channelProfiles.channelId))
          .limit(max);
        return rows.map((row) => ({ id: row.channelId, profile: profileOf(row) }));
      },
      set: (change: ProfileChange, audit: ProfileAudit) =>
        db.transaction(async (tx) => {
          const teamId = change.team ?? LEGACY_TENANT;
          const key = and(ofTeam(teamId), eq(channelProfiles.channelId, change.id));
          const [row] = await tx.select().from(channelProfiles).where(key).for("update");
          const before = row ? profileOf(row) : undefined;
          const after = change.next(before);
          if (after === null) {
            await tx.delete(channelProfiles).where(key);
          } else {
            const values = {
              instructions: after.instructions ?? null,
              toolAllow: after.tools ?? null,
              level: after.level ?? null,
              model: after.model ?? null,
              fallbackModel: after.fallbackModel ?? null,
              tokensPerDay: after.tokensPerDay ?? null,
              streaming: after.streaming ?? null,
              updatedBy: change.by,
            };
            await tx
              .insert(channelProfiles)
              .values({ teamId, channelId: change.id, ...values })
              .onConflictDoUpdate({
                target: [channelProfiles.teamId, channelProfiles.channelId],
                set: { ...values, updatedAt: sql`now()` },
              });
          }
          await o.audit.append(audit(before, after), tx);
          return { before, after };
        }),
    },
    "channel profiles",
  );
}
