import { booleanArg, integerArg, requiredString, stringArg } from "../api-args.ts";
import { SlackApiError } from "../api-error.ts";
import { apiChannel, apiMessage, requireBotMember, resolveChannel } from "../api-objects.ts";
import { compareTs } from "../message-ts.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";
import { paginate } from "../pagination.ts";
import type { SandboxMessage } from "../workspace-types.ts";

/** `conversations.*`: reading channels, DMs and threads the bot is in, and opening DMs. */
export const conversationsMethods: Record<string, MethodHandler> = {
  "conversations.history": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    requireBotMember(ctx, channel);
    const newestFirst = inRange(ctx, ctx.workspace.history(channel.id)).reverse();
    const page = paginate(newestFirst, pageArgs(ctx));
    return {
      messages: page.items.map((m) => apiMessage(ctx, m)),
      has_more: page.hasMore,
      pin_count: 0,
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  "conversations.replies": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    requireBotMember(ctx, channel);
    const ts = requiredString(ctx.args, "ts", "thread_not_found");
    const thread = ctx.workspace.replies(channel.id, ts);
    if (!thread) throw new SlackApiError("thread_not_found");
    // Slack always answers with the parent first, then the replies in range.
    const [parent, ...replies] = thread;
    const page = paginate([...(parent ? [parent] : []), ...inRange(ctx, replies)], pageArgs(ctx));
    return {
      messages: page.items.map((m) => apiMessage(ctx, m)),
      has_more: page.hasMore,
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  "conversations.info": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    // As Slack: a private channel (or someone else's DM) the bot is not in is not found.
    if ((channel.is_private || channel.is_im) && !channel.members.includes(ctx.workspace.bot.userId))
      throw new SlackApiError("channel_not_found");
    return { channel: apiChannel(ctx, channel) };
  },

  // Public channels for anyone; private ones only where the bot is a member; DMs only when asked.
  "conversations.list": (ctx) => {
    const types = new Set(
      (stringArg(ctx.args, "types") ?? "public_channel")
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    );
    const bot = ctx.workspace.bot.userId;
    const listed = ctx.workspace.channelRecords().filter((c) => {
      if (c.is_im) return types.has("im") && c.members.includes(bot);
      if (c.is_private) return types.has("private_channel") && c.members.includes(bot);
      return types.has("public_channel");
    });
    const page = paginate(listed, pageArgs(ctx));
    return {
      channels: page.items.map((c) => apiChannel(ctx, c)),
      response_metadata: { next_cursor: page.nextCursor },
    };
  },

  "conversations.members": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    const page = paginate(channel.members, pageArgs(ctx));
    return { members: page.items, response_metadata: { next_cursor: page.nextCursor } };
  },

  "conversations.open": (ctx) => {
    const existingId = stringArg(ctx.args, "channel");
    const users = (stringArg(ctx.args, "users") ?? "")
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean);
    if (!existingId && users.length === 0) throw new SlackApiError("users_list_not_supplied");
    if (users.length > 1)
      throw new SlackApiError("not_supported", { detail: "the sandbox has no group DMs" });
    let channel = existingId ? resolveChannel(ctx, existingId) : undefined;
    const user = users[0];
    if (!channel && user) {
      if (!ctx.workspace.getUser(user)) throw new SlackApiError("user_not_found");
      const alreadyOpen = ctx.workspace.listChannels().some((c) => c.is_im && c.user === user);
      channel = ctx.workspace.openDm(user);
      if (alreadyOpen) return { no_op: true, already_open: true, channel: shortOrFull(ctx, channel.id) };
    }
    if (!channel) throw new SlackApiError("channel_not_found");
    return { channel: shortOrFull(ctx, channel.id) };
  },
};

function shortOrFull(ctx: MethodContext, id: string): Record<string, unknown> {
  const channel = ctx.workspace.getChannel(id);
  return booleanArg(ctx.args, "return_im") && channel ? apiChannel(ctx, channel) : { id };
}

function pageArgs(ctx: MethodContext): { limit?: number; cursor?: string } {
  const limit = integerArg(ctx.args, "limit");
  const cursor = stringArg(ctx.args, "cursor");
  return { ...(limit !== undefined ? { limit } : {}), ...(cursor ? { cursor } : {}) };
}

/** Applies `oldest`, `latest` and `inclusive` as Slack does (bounds exclusive unless `inclusive`). */
function inRange(ctx: MethodContext, messages: SandboxMessage[]): SandboxMessage[] {
  const oldest = stringArg(ctx.args, "oldest");
  const latest = stringArg(ctx.args, "latest");
  const inclusive = booleanArg(ctx.args, "inclusive") ?? false;
  return messages.filter((m) => {
    if (oldest && oldest !== "0") {
      const c = compareTs(m.ts, oldest);
      if (c < 0 || (c === 0 && !inclusive)) return false;
    }
    if (latest) {
      const c = compareTs(m.ts, latest);
      if (c > 0 || (c === 0 && !inclusive)) return false;
    }
    return true;
  });
}
