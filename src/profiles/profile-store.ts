import type { AuditEvent, AuditLog } from "../store/audit.ts";
import type { Database } from "../store/db.ts";
import { asc, eq, inArray, sql } from "../store/drizzle.ts";
import { channelProfiles } from "../store/schema.ts";
import { withStorageErrors } from "../store/storage-errors.ts";
import { type ChannelProfile, DEFAULT_PROFILE_ID } from "./channel-profile.ts";

/** Profiles kept in Postgres (`channel_profiles`), changed through Slack. */
export interface ProfileStore {
  /** The profiles of these ids (a channel and `default`) that exist, by id. */
  get(ids: readonly string[]): Promise<Map<string, ChannelProfile>>;
  set(change: ProfileChange, audit: ProfileAudit): Promise<ProfileChanged>;
  /** Every profile kept, the default first and then channels in id order, at most `max`. */
  list(max: number): Promise<Array<{ id: string; profile: ChannelProfile }>>;
}

/**
 * A change to the profile of `id`: `next` makes the new profile (null: remove it) from the one it
 * replaces, read under the row's lock, so two admins changing fields of one profile at once both land.
 */
export interface ProfileChange {
  id: string;
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
  };
}

export function createProfileStore(o: { db: Database; audit: AuditLog }): ProfileStore {
  const { db } = o;
  return withStorageErrors(
    {
      async get(ids: readonly string[]) {
        const rows = await db
          .select()
          .from(channelProfiles)
          .where(inArray(channelProfiles.channelId, [...ids]));
        return new Map(rows.map((row) => [row.channelId, profileOf(row)]));
      },
      async list(max: number) {
        const rows = await db
          .select()
          .from(channelProfiles)
          .orderBy(sql`${channelProfiles.channelId} <> ${DEFAULT_PROFILE_ID}`, asc(channelProfiles.channelId))
          .limit(max);
        return rows.map((row) => ({ id: row.channelId, profile: profileOf(row) }));
      },
      set: (change: ProfileChange, audit: ProfileAudit) =>
        db.transaction(async (tx) => {
          const [row] = await tx
            .select()
            .from(channelProfiles)
            .where(eq(channelProfiles.channelId, change.id))
            .for("update");
          const before = row ? profileOf(row) : undefined;
          const after = change.next(before);
          if (after === null) {
            await tx.delete(channelProfiles).where(eq(channelProfiles.channelId, change.id));
          } else {
            const values = {
              instructions: after.instructions ?? null,
              toolAllow: after.tools ?? null,
              level: after.level ?? null,
              updatedBy: change.by,
            };
            await tx
              .insert(channelProfiles)
              .values({ channelId: change.id, ...values })
              .onConflictDoUpdate({
                target: channelProfiles.channelId,
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
