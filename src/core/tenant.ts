/**
 * The tenant key: what every row a user can reach (tickets, memories, schedules, channel budgets,
 * runs, approvals, the audit log's chains) is scoped by, stored in its `team_id` column. A user of
 * one tenant never reads or acts on another's rows.
 *
 * - A Slack workspace's rows: its team id (`T…`).
 * - An Enterprise org-wide event that names no workspace: the org's id (`E…`); team and org ids never
 *   collide.
 * - No team at all (the CLI, tests, rows written before Hermes scoped by team): `LEGACY_TENANT`, the
 *   empty string. At start a Hermes with one bot token adopts such rows into its own workspace
 *   (`store/adopt-legacy-rows.ts`); the audit log cannot be rewritten, so its rows from before
 *   scoping stay the `''` chain, which verifies on its own like any team's.
 *
 * The same rule in SQL is `coalesce(team_id, '')` (drizzle/0015_team_scoping.sql).
 */
export type TenantKey = string;

/** Rows with no team: written before scoping, or by a caller outside any workspace. */
export const LEGACY_TENANT: TenantKey = "";

/** The tenant a team (or, without one, an Enterprise org) belongs to; none is `LEGACY_TENANT`. */
export function tenantKey(teamId?: string | null, enterpriseId?: string | null): TenantKey {
  return teamId || enterpriseId || LEGACY_TENANT;
}

/** Is a row stored under `rowTeamId` (a `team_id` column, null on old rows) this tenant's? */
export function sameTenant(rowTeamId: string | null | undefined, tenant: TenantKey): boolean {
  return tenantKey(rowTeamId) === tenant;
}

/** How a tenant is named to a person (a CLI line, a log): the key, or "no team" for the legacy one. */
export function describeTenant(tenant: TenantKey): string {
  return tenant === LEGACY_TENANT ? "no team (rows from before workspaces were scoped)" : tenant;
}
