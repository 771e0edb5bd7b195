import type { Logger } from "../core/logger.ts";
import type { ChannelProfile } from "../profiles/channel-profile.ts";
import { type ChannelProfiles, createChannelProfiles } from "../profiles/channel-profiles.ts";
import { createProfileStore } from "../profiles/profile-store.ts";
import { loadProfilesFile, unknownToolProblems } from "../profiles/profiles-file.ts";
import type { AuditLog } from "../store/audit.ts";
import type { DatabaseHandle } from "../store/db.ts";
import type { ToolRegistry } from "../tools/registry.ts";

export type ProfilesFile = { file: string; profiles: Map<string, ChannelProfile> };

/** `HERMES_PROFILES`, read before anything opens: a bad file stops start-up with its one message. */
export function readProfilesFile(file: string | undefined): ProfilesFile | undefined {
  return file ? { file, profiles: loadProfilesFile(file) } : undefined;
}

/**
 * The channels' profiles: the file's when one is configured, else those kept in `channel_profiles`,
 * per tenant (`core/tenant.ts`).
 */
export function buildChannelProfiles(o: {
  handle: DatabaseHandle;
  audit: AuditLog;
  fromFile: ProfilesFile | undefined;
}): ChannelProfiles {
  return createChannelProfiles({
    store: createProfileStore({ db: o.handle.db, audit: o.audit }),
    ...(o.fromFile ? { fromFile: o.fromFile } : {}),
  });
}

/** Once every tool is registered: a warning for each allow-list entry of the file that names no tool. */
export function checkProfileTools(
  fromFile: ProfilesFile | undefined,
  registry: ToolRegistry,
  logger: Logger,
) {
  if (!fromFile) return;
  const problems = unknownToolProblems(fromFile.profiles, new Set(registry.names()));
  if (problems.length > 0)
    logger.warn({ file: fromFile.file, problems }, "HERMES_PROFILES names tools that do not exist");
  logger.info({ file: fromFile.file, profiles: fromFile.profiles.size }, "channel profiles loaded");
}
