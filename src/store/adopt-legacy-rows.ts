import type { Logger } from "../core/logger.ts";
import { LEGACY_TENANT, type TenantKey } from "../core/tenant.ts";
import type { Database } from "./db.ts";
import { sql } from "./drizzle.ts";

/**
 * Rows written before Hermes scoped by team (or by a caller with no team) have `team_id` ''
 * (`core/tenant.ts`). A Hermes started with one bot token serves one workspace, so at start its
 * tickets, memories, schedules, channel budgets and channel profiles with '' become that workspace's:
 * what people saw before, they see after. Idempotent (only '' rows change); a channel budget or
 * profile the workspace already has its own of is kept, and the '' one left alone. The audit log is
 * never rewritten: its rows from before stay the '' chain (`audit-chains.ts`).
 */
export async function adoptLegacyRows(
  db: Database,
  tenant: TenantKey,
  logger?: Logger,
): Promise<{ adopted: number }> {
  if (tenant === LEGACY_TENANT) return { adopted: 0 };
  const adopted = await db.transaction(async (tx) => {
    let n = 0;
    for (const table of ["tickets", "memories", "schedules"] as const) {
      const r = await tx.execute(
        sql`UPDATE ${sql.identifier(table)} SET team_id = ${tenant} WHERE team_id = ${LEGACY_TENANT} RETURNING 1`,
      );
      n += r.rows.length;
    }
    // Keyed by (team_id, channel_id): a row the workspace has its own of already stays ''.
    for (const table of ["channel_budgets", "channel_profiles"] as const) {
      const r = await tx.execute(sql`
        UPDATE ${sql.identifier(table)} AS b SET team_id = ${tenant}
        WHERE b.team_id = ${LEGACY_TENANT} AND NOT EXISTS (
          SELECT 1 FROM ${sql.identifier(table)} o WHERE o.team_id = ${tenant} AND o.channel_id = b.channel_id)
        RETURNING 1`);
      n += r.rows.length;
    }
    return n;
  });
  if (adopted > 0) logger?.info({ teamId: tenant, rows: adopted }, "rows from before team scoping adopted");
  return { adopted };
}
