import type { Access, PolicyGuard } from "../agent/run/policy-hook.ts";
import type { Config } from "../config.ts";
import type { UserStore } from "../store/user-store.ts";
import type { ToolRegistry } from "../tools/registry.ts";
import { createPolicy } from "./create-policy.ts";
import { resolveLevel } from "./levels.ts";

/** What a user's access is read from: their stored level and lists, `HERMES_ADMINS`, the tools and their guards. */
export interface AccessSources {
  users: UserStore;
  config: Config;
  registry: ToolRegistry;
  /** Tool-specific permission checks only code can make (e.g. send_message destinations). */
  guards: Record<string, PolicyGuard>;
}

/**
 * A user's level and permitted tools, read fresh each time (a turn, a resume, a click): a level
 * changed in `users` or `HERMES_ADMINS` applies at once, also to runs already paused.
 */
export async function resolveAccess(s: AccessSources, userId: string): Promise<Access> {
  const stored = await s.users.get(userId);
  const level = resolveLevel({ userId, admins: s.config.env.HERMES_ADMINS, stored: stored?.level ?? null });
  const { hook, allowed } = createPolicy({
    tools: s.registry.list(),
    level,
    allow: stored?.toolAllow,
    deny: stored?.toolDeny,
    guards: s.guards,
  });
  return { userId, level, allowed, policy: hook };
}
