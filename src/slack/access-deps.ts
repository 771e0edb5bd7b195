import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Config } from "../config.ts";
import type { AccessSources } from "../policy/resolve-access.ts";
import type { Storage } from "../storage.ts";

/** What a user's access is resolved from, in the groups a handler holds: stored level, admins, tools, guards. */
export interface AccessDeps {
  config: Config;
  storage: Pick<Storage, "users">;
  runtime: Pick<AgentRuntime, "registry" | "guards">;
}

/** The parts `resolveAccess` reads, taken out of their groups. */
export function accessSourcesOf(s: AccessDeps): AccessSources {
  return { users: s.storage.users, config: s.config, registry: s.runtime.registry, guards: s.runtime.guards };
}
