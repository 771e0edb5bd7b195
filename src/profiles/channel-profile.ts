import { z } from "zod";

/** The id the default profile is kept under: it applies in every channel without a profile of its own. */
export const DEFAULT_PROFILE_ID = "default";

/** The levels a channel may give people who have none of their own (never admin). */
export const PROFILE_LEVELS = ["viewer", "user"] as const;
export type ProfileLevel = (typeof PROFILE_LEVELS)[number];

/** Longest instructions a profile may add to the system prompt. */
export const MAX_PROFILE_INSTRUCTIONS = 4000;

/**
 * A channel's agent: what its runs are told beyond the default instructions, the only tools they may
 * call (a hard boundary, enforced by policy), and the level people without one of their own get there.
 * A field left out changes nothing.
 */
export interface ChannelProfile {
  instructions?: string;
  tools?: string[];
  level?: ProfileLevel;
}

/** One profile as written in `HERMES_PROFILES` (keys as in YAML) or built from `/hermes profile set`. */
export const channelProfileSchema = z
  .object({
    instructions: z.string().trim().min(1).max(MAX_PROFILE_INSTRUCTIONS).optional(),
    tools: z.array(z.string().trim().min(1)).optional(),
    level: z.enum(PROFILE_LEVELS).optional(),
  })
  .strict();

/** The profile a run in a channel gets, and where it comes from. */
export interface EffectiveProfile {
  profile: ChannelProfile;
  /** `channel`: its own; `default`: the default profile; `none`: neither exists. */
  source: "channel" | "default" | "none";
}

/** The channel's own profile when it has one, else the default, else nothing. */
export function effectiveProfile(
  own: ChannelProfile | undefined,
  fallback: ChannelProfile | undefined,
): EffectiveProfile {
  if (own) return { profile: own, source: "channel" };
  if (fallback) return { profile: fallback, source: "default" };
  return { profile: {}, source: "none" };
}

/** The profile as a plain JSON object for the audit log (every field, null when unset). */
export function profileForAudit(profile: ChannelProfile | undefined) {
  if (!profile) return null;
  return {
    instructions: profile.instructions ?? null,
    tools: profile.tools ?? null,
    level: profile.level ?? null,
  };
}

/** Names in `tools` that no registered tool has. */
export function unknownTools(tools: readonly string[] | undefined, known: ReadonlySet<string>): string[] {
  return (tools ?? []).filter((name) => !known.has(name));
}

/** What a profile adds to policy (`resolveAccess`'s channel rules): its allow-list and default level. */
export function profileRules(profile: ChannelProfile): { allow?: string[]; level?: ProfileLevel } {
  return {
    ...(profile.tools ? { allow: profile.tools } : {}),
    ...(profile.level ? { level: profile.level } : {}),
  };
}
