import type { PolicyHook } from "../agent/policy-hook.ts";
import type { RuntimeDeps } from "../agent/runtime-types.ts";
import { createPolicy } from "../policy/create-policy.ts";
import { resolveLevel } from "../policy/levels.ts";
import type { PermissionLevel } from "../tools/define-tool.ts";
import type { SlackServices } from "./services.ts";

export interface Access {
  userId: string;
  level: PermissionLevel;
  /** Tool names this user may call: the model sees only these. */
  allowed: Set<string>;
  policy: PolicyHook;
}

/**
 * A user's level and permitted tools, read fresh each time (a turn, a resume, a click): a level
 * changed in `users` or `HERMES_ADMINS` applies at once, also to runs already paused.
 */
export async function resolveAccess(
  s: Pick<SlackServices, "users" | "config" | "registry" | "guards">,
  userId: string,
): Promise<Access> {
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

/** The runtime's dependencies for a run on behalf of `access`'s user: their tools, their policy, the audit sink. */
export function runtimeDepsFor(
  s: Pick<SlackServices, "model" | "fallbackModel" | "registry" | "logger" | "auditSink" | "limits">,
  access: Access,
  signal: AbortSignal,
): RuntimeDeps {
  return {
    model: s.model,
    ...(s.fallbackModel ? { fallbackModel: s.fallbackModel } : {}),
    registry: s.registry,
    logger: s.logger,
    policy: access.policy,
    toolNames: [...access.allowed],
    onToolEvent: s.auditSink,
    limits: s.limits,
    signal,
  };
}
