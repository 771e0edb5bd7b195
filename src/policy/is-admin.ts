import type { UserStore } from "../store/user-store.ts";
import { resolveLevel } from "./levels.ts";

/**
 * Whether a user is an admin by the rule `resolveAccess` applies: in `HERMES_ADMINS`, or promoted in
 * the `users` table. Read fresh on each call, so a promotion or demotion applies at once.
 */
export function createIsAdmin(o: {
  users: Pick<UserStore, "get">;
  admins: readonly string[];
}): (userId: string) => Promise<boolean> {
  return async (userId) =>
    resolveLevel({ userId, admins: o.admins, stored: (await o.users.get(userId))?.level ?? null }) ===
    "admin";
}
