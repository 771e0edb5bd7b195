import { SlackApiError } from "./api-error.ts";
import { isPublicFile, slackFileObject } from "./file-objects.ts";
import type { MethodContext } from "./method-types.ts";
import type { SandboxChannel, SandboxFileInfo, SandboxMessage, SandboxUser } from "./workspace-types.ts";

/** How workspace records look in Web API answers, and the channel look-ups every method shares. */

/**
 * The conversation a `channel` argument names: an id, `#name` / `name`, or (where Slack allows it,
 * e.g. `chat.postMessage`) a user id meaning the bot's DM with that user.
 */
export function resolveChannel(
  ctx: MethodContext,
  value: string | undefined,
  { allowUser = false }: { allowUser?: boolean } = {},
): SandboxChannel {
  if (!value) throw new SlackApiError("channel_not_found");
  const { workspace } = ctx;
  const byId = workspace.getChannel(value);
  if (byId) return byId;
  if (allowUser && /^[UW]/.test(value) && workspace.getUser(value)) return workspace.openDm(value);
  const byName = workspace.findChannelByName(value);
  if (byName) return byName;
  throw new SlackApiError("channel_not_found");
}

/** The bot must be in the conversation to read or write it (Hermes has no `chat:write.public`). */
export function requireBotMember(ctx: MethodContext, channel: SandboxChannel): void {
  if (!channel.members.includes(ctx.workspace.bot.userId)) throw new SlackApiError("not_in_channel");
}

export function isOwnMessage(ctx: MethodContext, message: SandboxMessage): boolean {
  const { bot } = ctx.workspace;
  return message.bot_id === bot.botId || (message.user === bot.userId && message.subtype !== "tombstone");
}

export function apiMessage(ctx: MethodContext, message: SandboxMessage): Record<string, unknown> {
  const { channel: _channel, ephemeral_for: _for, files, ...fields } = message;
  const { bot, team } = ctx.workspace;
  const rest = files ? { ...fields, files: files.map((f) => apiFile(ctx, f)) } : fields;
  if (message.bot_id !== bot.botId) return rest;
  return {
    ...rest,
    bot_profile: { id: bot.botId, app_id: bot.appId, name: bot.name, deleted: false, team_id: team.id },
  };
}

/** A message's file as Slack lists it in history and replies. */
function apiFile(ctx: MethodContext, file: SandboxFileInfo): Record<string, unknown> {
  const { workspace } = ctx;
  return slackFileObject(file, { teamId: workspace.team.id, isPublic: isPublicFile(workspace, file) });
}

export function apiUser(ctx: MethodContext, user: SandboxUser): Record<string, unknown> {
  const image = user.profile.image_48.startsWith("/")
    ? `${ctx.origin}${user.profile.image_48}`
    : user.profile.image_48;
  return {
    ...user,
    is_owner: user.is_admin,
    is_primary_owner: false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_app_user: false,
    profile: { ...user.profile, image_48: image, team: user.team_id },
  };
}

export function apiChannel(ctx: MethodContext, channel: SandboxChannel): Record<string, unknown> {
  if (channel.is_im) {
    return {
      id: channel.id,
      created: channel.created,
      is_im: true,
      is_org_shared: false,
      user: channel.user,
      is_user_deleted: false,
      priority: 0,
    };
  }
  return {
    id: channel.id,
    name: channel.name,
    name_normalized: channel.name,
    is_channel: channel.is_channel && !channel.is_private,
    is_group: channel.is_private,
    is_im: false,
    is_mpim: false,
    is_private: channel.is_private,
    is_archived: false,
    is_general: channel.name === "general",
    is_shared: false,
    is_org_shared: false,
    is_member: channel.members.includes(ctx.workspace.bot.userId),
    created: channel.created,
    num_members: channel.members.length,
    topic: { value: channel.topic ?? "", creator: "", last_set: 0 },
    purpose: { value: channel.purpose ?? "", creator: "", last_set: 0 },
  };
}
