import type { Access, PolicyGuard, PolicyHook } from "../agent/run/policy-hook.ts";
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

/** What the channel a run answers in adds to its requester's access (its profile). */
export interface ChannelRules {
  /** The only tools runs there may call; absent: no channel limit. Narrows, never raises. */
  allow?: readonly string[];
  /** The level of people with none of their own there (never above `user`). */
  level?: "viewer" | "user";
}

/**
 * A user's level and permitted tools, read fresh each time (a turn, a resume, a click): a level
 * changed in `users` or `HERMES_ADMINS` applies at once, also to runs already paused. `channel`
 * (a run's channel profile): its allow-list is a hard boundary, a tool outside it is neither offered
 * nor run, whoever asks.
 */
export async function resolveAccess(
  s: AccessSources,
  userId: string,
  /** The channel's rules, or their read (awaited beside the user's row). */
  rules?: ChannelRules | Promise<ChannelRules>,
): Promise<Access> {
  const [stored, channel] = await Promise.all([s.users.get(userId), rules]);
  const level = resolveLevel({
    userId,
    admins: s.config.env.HERMES_ADMINS,
    stored: stored?.level ?? channel?.level ?? null,
  });
  const { hook, allowed } = createPolicy({
    tools: s.registry.list(),
    level,
    allow: stored?.toolAllow,
    deny: stored?.toolDeny,
    guards: s.guards,
  });
  const access = { userId, level, allowed, policy: hook };
  return channel?.allow ? withinChannel(access, channel.allow) : access;
}

/** `access` narrowed to the channel's allow-list, in the tools offered and in the policy. */
function withinChannel(access: Access, allow: readonly string[]): Access {
  const inChannel = new Set(allow);
  const listed = allow.length > 0 ? [...allow].sort().join(", ") : "none";
  const policy: PolicyHook = (input) =>
    inChannel.has(input.tool.name)
      ? access.policy(input)
      : {
          action: "deny",
          reason: `${input.tool.name} is not allowed in this channel: its profile allows only ${listed}`,
        };
  return {
    ...access,
    allowed: new Set([...access.allowed].filter((name) => inChannel.has(name))),
    policy,
  };
}
