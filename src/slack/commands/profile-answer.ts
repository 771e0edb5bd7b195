import type { Logger } from "../../core/logger.ts";
import { formatTokens } from "../../core/token-amount.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import { type ChannelProfile, DEFAULT_PROFILE_ID } from "../../profiles/channel-profile.ts";
import { type ChannelProfiles, fileManagedSentence } from "../../profiles/channel-profiles.ts";
import type { Storage } from "../../storage.ts";
import { type AccessDeps, accessSourcesOf } from "../access-deps.ts";
import type { SlackOutput } from "../slack-output.ts";
import { recordRefusal } from "./admin-refusal.ts";
import {
  PROFILE_USAGE,
  type ProfileFieldChange,
  type ProfileTarget,
  parseProfileCommand,
} from "./parse-profile-command.ts";
import { changeProfile, profileOwner, profileValueProblem } from "./profile-change.ts";
import { resolveNamed } from "./resolve-named.ts";

export const PROFILE_REFUSAL = "Only admins can change channel profiles.";
export const PROFILES_DISABLED = "Channel profiles are not enabled on this Hermes.";

export interface ProfileServices extends AccessDeps {
  logger: Logger;
  storage: Pick<Storage, "users" | "audit" | "profiles">;
  slack: Pick<SlackOutput, "slack">;
}

const PROFILE_EXAMPLE = "/hermes profile set #ops tools get_current_time";

export interface ProfileInput {
  userId: string;
  teamId?: string | undefined;
  channelId?: string | undefined;
}

/**
 * `/hermes profile`: the channel's profile (its own, or the default it falls back to), for anyone.
 * `set` and `clear` are for admins (checked before their arguments are read; a refusal is audited)
 * and are refused with the file's name while `HERMES_PROFILES` is in charge. Each change is audited
 * as `profile.changed` with the profile before and after, in the change's own transaction.
 */
export async function profileAnswer(s: ProfileServices, input: ProfileInput, args: string): Promise<string> {
  const profiles = s.storage.profiles;
  if (!profiles) return PROFILES_DISABLED;
  const verb = (args.trim().split(/\s+/)[0] ?? "").toLowerCase();
  if (verb === "help") return PROFILE_USAGE;
  const parsed = parseProfileCommand(args);
  if (verb !== "set" && verb !== "clear") {
    if (!parsed.ok) return `:warning: ${parsed.error}`;
    if (parsed.command.kind === "show") {
      const target = await namedTarget(s, parsed.command.target);
      return target.ok ? showProfile(profiles, target.target, input) : `:warning: ${target.error}`;
    }
  }
  const access = await resolveAccess(accessSourcesOf(s), input.userId);
  if (access.level !== "admin") {
    await recordRefusal(s, { ...input, subcommand: "profile", reason: PROFILE_REFUSAL });
    return PROFILE_REFUSAL;
  }
  if (profiles.file) return fileManagedSentence(profiles.file);
  if (!parsed.ok) return `:warning: ${parsed.error}`;
  const target = await namedTarget(s, parsed.command.target);
  if (!target.ok) return `:warning: ${target.error}`;
  const id = targetId(target.target, input);
  if (!id) return ":warning: Name a channel (`/hermes profile set #channel …`): this is not one.";
  const command = parsed.command;
  if (command.kind === "set") {
    const problem = profileValueProblem(command.change.field, command.change.value, {
      tools: new Set(s.runtime.registry.names()),
      modelConfigured: s.config.model !== undefined,
    });
    if (problem) return `:warning: ${problem}`;
  }
  const { before, after } = await changeProfile(
    { profiles, logger: s.logger },
    {
      id,
      userId: input.userId,
      teamId: input.teamId,
      channelId: input.channelId,
      next: (was) => (command.kind === "set" ? withChange(was ?? {}, command.change) : null),
    },
  );
  const whose = profileOwner(id);
  if (after === null)
    return before
      ? `${whose} is removed${id === DEFAULT_PROFILE_ID ? "" : ": the channel now gets the default profile"}.`
      : `${whose} was not set: nothing changed.`;
  return `${whose} is now:\n${describeProfile(after)}`;
}

/** The profile with one field set, or removed (`null`); an empty profile is kept (it overrides the default). */
function withChange(profile: ChannelProfile, change: ProfileFieldChange): ChannelProfile {
  const { [change.field]: _dropped, ...rest } = profile;
  return change.value === null ? rest : { ...rest, [change.field]: change.value };
}

/** A `#name` target looked up in the workspace (as `/hermes budget` does); others as they are. */
async function namedTarget(
  s: Pick<ProfileServices, "slack">,
  target: ProfileTarget,
): Promise<{ ok: true; target: ProfileTarget } | { ok: false; error: string }> {
  if (target.kind !== "named") return { ok: true, target };
  const named = await resolveNamed(s.slack.slack, target.name, "channel", PROFILE_EXAMPLE);
  return named.ok ? { ok: true, target: { kind: "channel", id: named.resolved.id } } : named;
}

function targetId(target: ProfileTarget, input: ProfileInput): string | undefined {
  if (target.kind === "default") return DEFAULT_PROFILE_ID;
  if (target.kind === "channel") return target.id;
  if (target.kind === "named") return undefined;
  return input.channelId && !input.channelId.startsWith("D") ? input.channelId : undefined;
}

async function showProfile(
  profiles: ChannelProfiles,
  target: ProfileTarget,
  input: ProfileInput,
): Promise<string> {
  const footer = profiles.file
    ? `These profiles come from the file ${profiles.file} (HERMES_PROFILES): change them there, not in Slack.`
    : "Admins change it with `/hermes profile set …` (`/hermes profile help` says how) or in the App Home.";
  if (target.kind === "default") {
    const own = await profiles.own(DEFAULT_PROFILE_ID, input.teamId);
    return [
      "*The default profile* (for channels without their own)",
      own ? describeProfile(own) : "• none: such channels run with Hermes's defaults",
      "",
      footer,
    ].join("\n");
  }
  const channelId = target.kind === "channel" ? target.id : input.channelId;
  const { profile, source } = await profiles.forChannel(channelId, input.teamId);
  const where = channelId ? `<#${channelId}>` : "this conversation";
  const origin =
    source === "channel"
      ? "its own profile"
      : source === "default"
        ? "the default profile (it has none of its own)"
        : "no profile: Hermes's defaults";
  return [
    `*Profile of ${where}*: ${origin}`,
    ...(source === "none" ? [] : [describeProfile(profile)]),
    "",
    footer,
  ].join("\n");
}

/** The profile's fields, one line each, unset ones saying what that means. */
export function describeProfile(profile: ChannelProfile): string {
  const tools =
    profile.tools === undefined
      ? "any the person may use"
      : profile.tools.length === 0
        ? "none"
        : profile.tools.map((t) => `\`${t}\``).join(", ");
  const budget =
    profile.tokensPerDay === undefined
      ? "HERMES_BUDGET_CHANNEL_TOKENS_PER_DAY (the default)"
      : profile.tokensPerDay === 0
        ? "no limit"
        : `${formatTokens(profile.tokensPerDay)} tokens`;
  return [
    `• Tools: ${tools}`,
    `• Level for people without their own: ${profile.level ?? "user (the default)"}`,
    `• Model: ${profile.model ? `\`${profile.model}\`` : "HERMES_MODEL (the default)"}`,
    `• Fallback model: ${profile.fallbackModel ? `\`${profile.fallbackModel}\`` : "HERMES_FALLBACK_MODEL (the default)"}`,
    `• Daily token budget: ${budget}, unless \`/hermes budget\` sets one for the channel`,
    `• Streaming: ${profile.streaming === undefined ? "as HERMES_STREAMING (the default)" : profile.streaming ? "on" : "off"}`,
    `• Instructions: ${profile.instructions ? `\n> ${profile.instructions.replace(/\n/g, "\n> ")}` : "none added"}`,
  ].join("\n");
}

/** One profile in a line: whose, its tools and level, the rest it sets, and whether it adds instructions. */
export function profileLine(id: string, profile: ChannelProfile): string {
  const whose = id === DEFAULT_PROFILE_ID ? "Default" : `<#${id}>`;
  const tools =
    profile.tools === undefined
      ? "any tools"
      : profile.tools.length === 0
        ? "no tools"
        : `tools ${profile.tools.join(", ")}`;
  const level = profile.level ? `, level ${profile.level}` : "";
  const model = profile.model ? `, model ${profile.model}` : "";
  const fallback = profile.fallbackModel ? `, fallback ${profile.fallbackModel}` : "";
  const budget =
    profile.tokensPerDay !== undefined
      ? `, ${profile.tokensPerDay === 0 ? "no token limit" : `${formatTokens(profile.tokensPerDay)} tokens/day`}`
      : "";
  const streaming = profile.streaming === undefined ? "" : `, streaming ${profile.streaming ? "on" : "off"}`;
  const instructions = profile.instructions ? ", adds instructions" : "";
  return `• ${whose}: ${tools}${level}${model}${fallback}${budget}${streaming}${instructions}`;
}
