import type {
  SandboxChannel,
  SandboxFile,
  SandboxFileInfo,
  SandboxMessage,
  SandboxTeam,
  SandboxUser,
} from "./workspace-types.ts";

/** Builders for the workspace's records, and the thread bookkeeping Slack does on the parent message. */

export interface NewUser {
  id: string;
  name: string;
  realName?: string;
  displayName?: string;
  tz?: string;
  isAdmin?: boolean;
  isBot?: boolean;
  botId?: string;
  deleted?: boolean;
}

export interface NewChannel {
  id: string;
  name: string;
  isPrivate?: boolean;
  members?: string[];
  topic?: string;
  purpose?: string;
}

export function buildUser(input: NewUser, team: SandboxTeam): SandboxUser {
  const realName = input.realName ?? input.name;
  return {
    id: input.id,
    team_id: team.id,
    name: input.name,
    real_name: realName,
    tz: input.tz ?? "Asia/Shanghai",
    is_admin: input.isAdmin ?? false,
    is_bot: input.isBot ?? false,
    deleted: input.deleted ?? false,
    profile: {
      display_name: input.displayName ?? input.name,
      real_name: realName,
      image_48: `/avatars/${input.id}.svg`,
      initials: initialsOf(realName),
      ...(input.botId ? { bot_id: input.botId } : {}),
    },
  };
}

export function buildChannel(input: NewChannel, created: number): SandboxChannel {
  return {
    id: input.id,
    name: input.name,
    is_channel: true,
    is_im: false,
    is_private: input.isPrivate ?? false,
    members: [...(input.members ?? [])],
    created,
    ...(input.topic ? { topic: input.topic } : {}),
    ...(input.purpose ? { purpose: input.purpose } : {}),
  };
}

/** The bot's DM with a user: `U0USER1` → `D0USER1`. */
export function buildDm(userId: string, botUserId: string, created: number): SandboxChannel {
  return {
    id: `D${userId.slice(1)}`,
    name: "",
    is_channel: false,
    is_im: true,
    is_private: true,
    user: userId,
    members: [userId, botUserId],
    created,
  };
}

/** Records a new reply on its parent: thread_ts, reply_count, reply_users, latest_reply. */
export function attachReply(parent: SandboxMessage, reply: SandboxMessage): void {
  reply.thread_ts = parent.ts;
  if (parent.user) reply.parent_user_id = parent.user;
  parent.thread_ts = parent.ts;
  parent.reply_count = (parent.reply_count ?? 0) + 1;
  parent.reply_users = [...new Set([...(parent.reply_users ?? []), authorOf(reply)])];
  parent.latest_reply = reply.ts;
}

/** Recomputes the parent's thread fields from the replies that remain. */
export function recountReplies(parent: SandboxMessage, remaining: SandboxMessage[]): void {
  parent.reply_count = remaining.length;
  parent.latest_reply = remaining.at(-1)?.ts ?? parent.ts;
  parent.reply_users = [...new Set(remaining.map(authorOf))];
}

/** What Slack leaves of a deleted thread parent that still has replies. */
export function makeTombstone(message: SandboxMessage): void {
  Object.assign(message, {
    subtype: "tombstone",
    text: "This message was deleted.",
    user: "USLACKBOT",
    hidden: true,
  });
  delete message.bot_id;
  delete message.app_id;
  delete message.blocks;
  delete message.files;
}

export function isReply(message: SandboxMessage): boolean {
  return message.thread_ts !== undefined && message.thread_ts !== message.ts;
}

export function fileInfo(file: SandboxFile): SandboxFileInfo {
  const { bytes: _bytes, ...info } = file;
  return structuredClone(info);
}

function authorOf(message: SandboxMessage): string {
  return message.user ?? message.bot_id ?? "";
}

function initialsOf(name: string): string {
  const words = name.split(/[\s._-]+/).filter(Boolean);
  const letters = words.length > 1 ? `${words[0]?.[0] ?? ""}${words[1]?.[0] ?? ""}` : name.slice(0, 2);
  return letters.toUpperCase();
}
