import { LEVELS, type PermissionLevel } from "../core/permission-levels.ts";

export type { PermissionLevel } from "../core/permission-levels.ts";

export const levelRank = (level: PermissionLevel) => LEVELS.indexOf(level);

export function isAtLeast(level: PermissionLevel, min: PermissionLevel): boolean {
  return levelRank(level) >= levelRank(min);
}

/**
 * A user's level. `HERMES_ADMINS` wins (an admin cannot be locked out by a stale row); then the
 * `users` row; unknown users are `user`.
 */
export function resolveLevel(options: {
  userId: string;
  admins: readonly string[];
  stored?: PermissionLevel | null;
}): PermissionLevel {
  if (options.admins.includes(options.userId)) return "admin";
  return options.stored ?? "user";
}
