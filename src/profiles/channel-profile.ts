import { z } from "zod";

/** The id the default profile is kept under: it applies in every channel without a profile of its own. */
export const DEFAULT_PROFILE_ID = "default";

/** The levels a channel may give people who have none of their own (never admin). */
export const PROFILE_LEVELS = ["viewer", "user"] as const;
export type ProfileLevel = (typeof PROFILE_LEVELS)[number];

/** Longest instructions a profile may add to the system prompt. */
export const MAX_PROFILE_INSTRUCTIONS = 4000;

/** Longest model name a profile may name. */
export const MAX_MODEL_NAME = 200;

/** The largest daily token budget a profile may set (as `/hermes budget` allows). */
export const MAX_PROFILE_TOKENS_PER_DAY = 1_000_000_000_000;

/**
 * A channel's agent: what its runs are told beyond the default instructions, the only tools they may
 * call (a hard boundary, enforced by policy), the level people without one of their own get there,
 * the model (and fallback) that answers, the channel's daily token budget, and whether answers stream.
 * A field left out changes nothing.
 */
export interface ChannelProfile {
  instructions?: string;
  tools?: string[];
  level?: ProfileLevel;
  /** The model name on HERMES_MODEL's server (instead of HERMES_MODEL). */
  model?: string;
  /** The fallback model's name on its server (HERMES_FALLBACK_BASE_URL, else HERMES_MODEL's). */
  fallbackModel?: string;
  /** The channel's daily token budget where `/hermes budget #channel` set none (0 = no limit). */
  tokensPerDay?: number;
  /** Stream answers (true) or not (false), instead of HERMES_STREAMING. */
  streaming?: boolean;
}

/** Every field, in the order Slack and the audit log show them. */
export const PROFILE_FIELDS = [
  "instructions",
  "tools",
  "level",
  "model",
  "fallbackModel",
  "tokensPerDay",
  "streaming",
] as const satisfies ReadonlyArray<keyof ChannelProfile>;
export type ProfileField = (typeof PROFILE_FIELDS)[number];

/** Each field's name in YAML, `/hermes profile set` and the audit log. */
export const FIELD_KEYS: Record<ProfileField, string> = {
  instructions: "instructions",
  tools: "tools",
  level: "level",
  model: "model",
  fallbackModel: "fallback_model",
  tokensPerDay: "tokens_per_day",
  streaming: "streaming",
};

/** Why a model name is refused, or undefined when it may be used. */
export function modelNameProblem(name: string): string | undefined {
  if (name.length === 0) return "Give a model name.";
  if (name.length > MAX_MODEL_NAME) return `A model name can be at most ${MAX_MODEL_NAME} characters.`;
  if (/\s/.test(name)) return `\`${name}\` is not a model name: model names have no spaces.`;
  return undefined;
}

const modelName = z
  .string()
  .trim()
  .superRefine((name, ctx) => {
    const problem = modelNameProblem(name);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

/** One profile as written in `HERMES_PROFILES` (keys as in YAML). */
export const channelProfileSchema = z
  .object({
    instructions: z.string().trim().min(1).max(MAX_PROFILE_INSTRUCTIONS).optional(),
    tools: z.array(z.string().trim().min(1)).optional(),
    level: z.enum(PROFILE_LEVELS).optional(),
    model: modelName.optional(),
    fallback_model: modelName.optional(),
    tokens_per_day: z
      .number()
      .int("must be a whole number of tokens")
      .min(0, "must be 0 (no limit) or more")
      .max(MAX_PROFILE_TOKENS_PER_DAY)
      .optional(),
    streaming: z
      .union([z.boolean(), z.enum(["on", "off"])])
      .transform((v) => v === true || v === "on")
      .optional(),
  })
  .strict()
  .transform(
    (p): ChannelProfile => ({
      ...(p.instructions !== undefined ? { instructions: p.instructions } : {}),
      ...(p.tools !== undefined ? { tools: p.tools } : {}),
      ...(p.level !== undefined ? { level: p.level } : {}),
      ...(p.model !== undefined ? { model: p.model } : {}),
      ...(p.fallback_model !== undefined ? { fallbackModel: p.fallback_model } : {}),
      ...(p.tokens_per_day !== undefined ? { tokensPerDay: p.tokens_per_day } : {}),
      ...(p.streaming !== undefined ? { streaming: p.streaming } : {}),
    }),
  );

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

/** The profile as a plain JSON object for the audit log (every field by its YAML key, null when unset). */
export function profileForAudit(profile: ChannelProfile | undefined) {
  if (!profile) return null;
  return {
    instructions: profile.instructions ?? null,
    tools: profile.tools ?? null,
    level: profile.level ?? null,
    model: profile.model ?? null,
    fallback_model: profile.fallbackModel ?? null,
    tokens_per_day: profile.tokensPerDay ?? null,
    streaming: profile.streaming === undefined ? null : profile.streaming ? "on" : "off",
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

/** What a profile changes about how a run is run: its models, its channel's budget, streaming. */
export interface ProfileRunSettings {
  model?: string;
  fallbackModel?: string;
  channelTokensPerDay?: number;
  streaming?: boolean;
}

export function profileRunSettings(profile: ChannelProfile): ProfileRunSettings {
  return {
    ...(profile.model ? { model: profile.model } : {}),
    ...(profile.fallbackModel ? { fallbackModel: profile.fallbackModel } : {}),
    ...(profile.tokensPerDay !== undefined ? { channelTokensPerDay: profile.tokensPerDay } : {}),
    ...(profile.streaming !== undefined ? { streaming: profile.streaming } : {}),
  };
}
