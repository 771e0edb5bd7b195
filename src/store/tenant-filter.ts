import type { PgColumn } from "drizzle-orm/pg-core";
import { LEGACY_TENANT, type TenantKey } from "../core/tenant.ts";
import { eq, isNull, or, type SQL } from "./drizzle.ts";

/**
 * The rows of one tenant (`core/tenant.ts`) in a `team_id` column. The legacy tenant also owns rows
 * whose `team_id` is null (runs, approvals and audit rows written without a team), as
 * `coalesce(team_id, '')` says; another tenant's rows match exactly, so an index on team_id serves.
 */
export function ofTenant(column: PgColumn, tenant: TenantKey): SQL {
  return tenant === LEGACY_TENANT
    ? (or(isNull(column), eq(column, LEGACY_TENANT)) as SQL)
    : eq(column, tenant);
}
