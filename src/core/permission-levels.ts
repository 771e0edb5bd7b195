/** Permission levels, lowest first. */
export const LEVELS = ["viewer", "user", "admin"] as const;
export type PermissionLevel = (typeof LEVELS)[number];

export function isPermissionLevel(value: unknown): value is PermissionLevel {
  return LEVELS.some((level) => level === value);
}

/** Who may decide an approval: the requester or an admin (default), admins only, or anyone but the requester. */
export type ApproversRule = "requester_or_admin" | "admin" | "not_requester";
