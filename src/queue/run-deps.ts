import { withChannelInstructions } from "../agent/context/system-prompt.ts";
import { runtimeDepsFor } from "../agent/run/agent-runtime.ts";
import type { Access, ToolEventSink } from "../agent/run/policy-hook.ts";
import type { RuntimeDeps } from "../agent/run/runtime-types.ts";
import type { RunSnapshot, SettledCall } from "../agent/run/snapshot.ts";
import type { Logger } from "../core/logger.ts";
import { tenantKey } from "../core/tenant.ts";
import { resolveAccess } from "../policy/resolve-access.ts";
import {
  type ChannelProfile,
  type ProfileRunSettings,
  profileRules,
  profileRunSettings,
} from "../profiles/channel-profile.ts";
import { settleOpenCalls } from "./recover-run.ts";
import type { WorkerDeps } from "./worker-deps.ts";

type RunSources = Pick<WorkerDeps, "config" | "logger" | "storage" | "runtime">;

/**
 * A requester's access in one channel, with the instructions the channel's profile adds and what it
 * changes about the run (models, streaming, the channel's budget), if anything.
 */
export type RunAccess = Access & { instructions?: string; settings?: ProfileRunSettings };

/**
 * The requester's level and permitted tools in `channelId` of `teamId` (its profile's allow-list and
 * default level apply), for every turn and resume: a level changed since the run began applies at once,
 * a profile changed in this process at once and in another within a few seconds (`PROFILE_CACHE_MS`).
 */
export async function requesterAccess(
  s: RunSources,
  userId: string,
  channelId?: string,
  teamId?: string,
): Promise<RunAccess> {
  const { registry, guards } = s.runtime;
  // The profile is read beside the requester's row, not after it.
  const profile = s.storage.profiles?.forChannel(channelId, teamId).then((p): ChannelProfile => p.profile);
  const access = await resolveAccess(
    { users: s.storage.users, config: s.config, registry, guards },
    userId,
    profile?.then(profileRules),
  );
  const own = await profile;
  if (!own) return access;
  const settings = profileRunSettings(own);
  return {
    ...access,
    ...(own.instructions ? { instructions: own.instructions } : {}),
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
  };
}

/**
 * The runtime's dependencies for one run on behalf of `access`'s user, paid from their and
 * `channelId`'s budgets, with the models and streaming its channel's profile asks for, stopped by `signal`.
 */
export function runDeps(
  s: RunSources,
  access: RunAccess,
  signal: AbortSignal,
  channelId: string | undefined,
  teamId: string | undefined,
): RuntimeDeps {
  const deps = runtimeDepsFor(
    { ...s.runtime, logger: s.logger },
    access,
    signal,
    channelId,
    access.settings,
    tenantKey(teamId),
  );
  return access.instructions ? { ...deps, systemPrompt: withChannelInstructions(access.instructions) } : deps;
}

/** Wraps the audit sink: `onRequested` once a call's request was recorded (it may run from then on). */
export function trackActions(sink: ToolEventSink | undefined, onRequested: () => void): ToolEventSink {
  return async (event) => {
    await sink?.(event);
    if (event.action === "tool.requested") onRequested();
  };
}

/**
 * The open calls of a run whose worker died, settled from the audit log (`settleOpenCalls`): the
 * log it reads and the thread it tells come from the worker's groups.
 */
export function settleDeadWorkerCalls(
  s: Pick<WorkerDeps, "storage" | "output">,
  snapshot: RunSnapshot,
  log: Logger,
): Promise<Record<string, SettledCall>> {
  return settleOpenCalls({ db: s.storage.db, audit: s.storage.audit, output: s.output }, snapshot, log);
}
