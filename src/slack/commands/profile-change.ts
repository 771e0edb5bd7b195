import type { Logger } from "../../core/logger.ts";
import {
  type ChannelProfile,
  DEFAULT_PROFILE_ID,
  MAX_PROFILE_INSTRUCTIONS,
  profileForAudit,
  unknownTools,
} from "../../profiles/channel-profile.ts";
import type { ChannelProfiles } from "../../profiles/channel-profiles.ts";
import type { ProfileChanged } from "../../profiles/profile-store.ts";
import { COMMAND_AUDIT_TOOL } from "./admin-refusal.ts";

/** What a new profile value is checked against: the registered tools, and whether a model is configured. */
export interface ProfileChecks {
  tools: ReadonlySet<string>;
  /** Whether Hermes has a model server (a profile's model names a model there); false: command mode. */
  modelConfigured: boolean;
}

export const NO_MODEL_SERVER =
  "Hermes runs without a model (command mode): set HERMES_MODEL before a profile can choose one.";

/** The sentence a field's new value is refused with, or undefined when it may be saved. */
export function profileValueProblem<K extends keyof ChannelProfile>(
  field: K,
  value: ChannelProfile[K] | null,
  checks: ProfileChecks,
): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (field === "tools") {
    const unknown = unknownTools(value as string[], checks.tools);
    if (unknown.length > 0)
      return `No tool is named ${unknown.map((n) => `\`${n}\``).join(", ")}. \`/hermes tools\` lists the tools.`;
  }
  if (field === "instructions" && (value as string).length > MAX_PROFILE_INSTRUCTIONS)
    return `Instructions can be at most ${MAX_PROFILE_INSTRUCTIONS.toLocaleString("en-US")} characters; these are ${(value as string).length.toLocaleString("en-US")}.`;
  if ((field === "model" || field === "fallbackModel") && !checks.modelConfigured) return NO_MODEL_SERVER;
  return undefined;
}

/** Whose profile `id` is, as a sentence starts: "The default profile", "<#C0OPS>'s profile". */
export function profileOwner(id: string): string {
  return id === DEFAULT_PROFILE_ID ? "The default profile" : `<#${id}>'s profile`;
}

/**
 * Changes the profile `id` of `teamId` (`next` makes it from the one before; null removes it) and
 * audits it as `profile.changed` with the whole profile before and after, in the change's transaction.
 * Refused (`permission_denied`, the file's sentence) while `HERMES_PROFILES` is in charge.
 */
export async function changeProfile(
  s: { profiles: ChannelProfiles; logger: Logger },
  o: {
    id: string;
    userId: string;
    teamId?: string | undefined;
    /** Where the change was made (the channel `/hermes` was typed in); none from the App Home. */
    channelId?: string | undefined;
    next: (before: ChannelProfile | undefined) => ChannelProfile | null;
  },
): Promise<ProfileChanged> {
  const changed = await s.profiles.set(
    { id: o.id, by: o.userId, next: o.next },
    (was, now) => ({
      action: "profile.changed",
      tool: COMMAND_AUDIT_TOOL,
      userId: o.userId,
      actorId: o.userId,
      teamId: o.teamId ?? null,
      channelId: o.channelId ?? null,
      args: { channel: o.id, before: profileForAudit(was), after: profileForAudit(now ?? undefined) },
    }),
    o.teamId,
  );
  s.logger.info(
    { userId: o.userId, profile: o.id, cleared: changed.after === null },
    "channel profile changed",
  );
  return changed;
}
