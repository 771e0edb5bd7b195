import type { TenantKey } from "../../core/tenant.ts";
import type { Database } from "../../store/db.ts";
import { and, desc, eq, or } from "../../store/drizzle.ts";
import { memories } from "../../store/schema.ts";
import type { RecalledMemory } from "./fence-memories.ts";

/**
 * The memories a requester may see: their own private ones, and the channel's when the run is in a
 * channel, of their own team only. Another user's private memories and every other team's are
 * excluded here, in SQL, whatever the query says.
 */
export async function visibleMemories(options: {
  db: Database;
  tenant: TenantKey;
  userId: string;
  channelId?: string | undefined;
  limit: number;
}): Promise<RecalledMemory[]> {
  const { db, tenant, userId, channelId, limit } = options;
  const mine = and(eq(memories.scope, "user"), eq(memories.ownerId, userId));
  const channel = channelId
    ? and(eq(memories.scope, "channel"), eq(memories.channelId, channelId))
    : undefined;
  return db
    .select({
      id: memories.id,
      fact: memories.fact,
      scope: memories.scope,
      ownerId: memories.ownerId,
      channelId: memories.channelId,
      createdAt: memories.createdAt,
    })
    .from(memories)
    .where(and(eq(memories.teamId, tenant), channel ? or(mine, channel) : mine))
    .orderBy(desc(memories.id))
    .limit(limit);
}
