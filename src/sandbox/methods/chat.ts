import { jsonArg, requiredString, stringArg } from "../api-args.ts";
import { SlackApiError } from "../api-error.ts";
import { apiMessage, isOwnMessage, requireBotMember, resolveChannel } from "../api-objects.ts";
import { LIMITS } from "../block-kit-rules.ts";
import { readMessageContent } from "../message-content.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";

/** `chat.*`: the bot posts, updates, deletes and posts ephemerals. Every message is by the bot. */
export const chatMethods: Record<string, MethodHandler> = {
  "chat.postMessage": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"), { allowUser: true });
    requireBotMember(ctx, channel);
    const content = readMessageContent(ctx.args, {
      overlongText: { max: LIMITS.postMessageText, action: "truncate" },
    });
    const threadTs = existingThread(ctx, channel.id, stringArg(ctx.args, "thread_ts"));
    const { bot } = ctx.workspace;
    const message = ctx.workspace.post({
      channel: channel.id,
      text: content.text ?? "",
      user: bot.userId,
      botId: bot.botId,
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs ? { threadTs } : {}),
      ...metadataOf(ctx),
    });
    return { channel: channel.id, ts: message.ts, message: apiMessage(ctx, message) };
  },

  "chat.update": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    const ts = requiredString(ctx.args, "ts", "message_not_found");
    const existing = ctx.workspace.getMessage(channel.id, ts);
    if (!existing) throw new SlackApiError("message_not_found");
    if (!isOwnMessage(ctx, existing)) throw new SlackApiError("cant_update_message");
    const content = readMessageContent(ctx.args, {
      overlongText: { max: LIMITS.updateText, action: "reject" },
    });
    const message = ctx.workspace.updateMessage(channel.id, ts, {
      ...content,
      ...metadataOf(ctx),
      editedBy: ctx.workspace.bot.userId,
    });
    if (!message) throw new SlackApiError("message_not_found");
    return { channel: channel.id, ts, text: message.text, message: apiMessage(ctx, message) };
  },

  "chat.postEphemeral": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    const user = requiredString(ctx.args, "user", "user_not_found");
    if (!ctx.workspace.getUser(user)) throw new SlackApiError("user_not_found");
    requireBotMember(ctx, channel);
    if (!channel.members.includes(user)) throw new SlackApiError("user_not_in_channel");
    const content = readMessageContent(ctx.args, {
      overlongText: { max: LIMITS.postMessageText, action: "truncate" },
    });
    const threadTs = stringArg(ctx.args, "thread_ts");
    const { bot } = ctx.workspace;
    const message = ctx.workspace.postEphemeral({
      channel: channel.id,
      visibleTo: user,
      text: content.text ?? "",
      user: bot.userId,
      botId: bot.botId,
      ...(content.blocks ? { blocks: content.blocks } : {}),
      ...(threadTs ? { threadTs } : {}),
    });
    return { message_ts: message.ts };
  },

  "chat.delete": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    const ts = requiredString(ctx.args, "ts", "message_not_found");
    const existing = ctx.workspace.getMessage(channel.id, ts);
    if (!existing) throw new SlackApiError("message_not_found");
    if (!isOwnMessage(ctx, existing)) throw new SlackApiError("cant_delete_message");
    ctx.workspace.deleteMessage(channel.id, ts);
    return { channel: channel.id, ts };
  },
};

/**
 * The emulator is stricter than Slack here on purpose: a reply to a ts that is no message of the
 * channel is refused (`thread_not_found`) instead of silently landing somewhere a user never looks.
 */
function existingThread(
  ctx: MethodContext,
  channel: string,
  threadTs: string | undefined,
): string | undefined {
  if (!threadTs) return undefined;
  if (!ctx.workspace.getMessage(channel, threadTs)) throw new SlackApiError("thread_not_found");
  return threadTs;
}

function metadataOf(ctx: MethodContext): { metadata?: unknown } {
  const metadata = jsonArg(ctx.args, "metadata", "invalid_metadata_format");
  return metadata === undefined ? {} : { metadata };
}
