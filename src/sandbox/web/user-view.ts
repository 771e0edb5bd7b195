import { compareTs } from "../message-ts.ts";
import type { Workspace } from "../workspace.ts";
import type {
  SandboxChannel,
  SandboxFileInfo,
  SandboxMessage,
  SandboxUser,
  SandboxView,
  WorkspaceEvent,
} from "../workspace-types.ts";

/**
 * What one person sees of the sandbox workspace: the channels and DMs they are in, every message of
 * those (threads included), their own ephemerals and App Home. Ephemerals of others never leave here.
 */

export interface PageUser {
  id: string;
  name: string;
  realName: string;
  displayName: string;
  initials: string;
  avatar: string;
  isBot: boolean;
  /** Can open the audit panel (HERMES_ADMINS), not Slack's workspace admin flag. */
  isAuditAdmin: boolean;
}

export interface PageChannel {
  id: string;
  name: string;
  isIm: boolean;
  isPrivate: boolean;
  /** For a DM: the other member (the bot, in the sandbox). */
  dmWith?: string;
}

/** A file as the page links it: through this server, for this user. */
export type PageFile = SandboxFileInfo & { url: string; downloadUrl: string };
/**
 * A message as the page shows it to one person; `feedback_selected`: the 👍/👎 side they have
 * selected, by the element's `action_id` (its value), as their Slack client would remember it.
 */
export type PageMessage = Omit<SandboxMessage, "files"> & {
  files?: PageFile[];
  feedback_selected?: Record<string, string>;
};

export interface PageState {
  me: string;
  team: { id: string; name: string };
  bot: { userId: string; name: string };
  modelInfo: string;
  users: PageUser[];
  channels: PageChannel[];
  /** Oldest first, replies and this user's ephemerals included. */
  messages: PageMessage[];
  files: PageFile[];
  view: SandboxView | null;
}

/** What the stream sends the page. */
export type PageEvent =
  | { type: "message_posted" | "message_updated" | "message_deleted"; channel: string; message: PageMessage }
  | { type: "file_uploaded"; file: PageFile }
  | { type: "view_published"; view: SandboxView };

export interface UserViewOptions {
  workspace: Workspace;
  admins: readonly string[];
}

/** A person who may use the page: known, not deleted, not a bot. */
export function findPerson(workspace: Workspace, id: string): SandboxUser | undefined {
  const user = workspace.getUser(id);
  return user && !user.deleted && !user.is_bot ? user : undefined;
}

export function canSee(workspace: Workspace, channelId: string, userId: string): boolean {
  return workspace.isMember(channelId, userId);
}

export function pageState({ workspace, admins }: UserViewOptions, me: string, modelInfo: string): PageState {
  const channels = workspace.listChannels().filter((c) => c.members.includes(me));
  const messages = channels.flatMap((c) => channelMessages(workspace, c.id, me));
  messages.sort((a, b) => compareTs(a.ts, b.ts));
  const pageMessages = messages.map((m) => pageMessage(workspace, m, me));
  const files = new Map(pageMessages.flatMap((m) => m.files ?? []).map((f) => [f.id, f]));
  return {
    me,
    team: { id: workspace.team.id, name: workspace.team.name },
    bot: { userId: workspace.bot.userId, name: workspace.bot.name },
    modelInfo,
    users: pagePeople({ workspace, admins }),
    channels: channels.map((c) => pageChannel(c, me)),
    messages: pageMessages,
    files: [...files.values()],
    view: workspace.getView(me) ?? null,
  };
}

/** Everyone in the workspace (the page's "you are" switcher and mention suggestions). */
export function pagePeople({ workspace, admins }: UserViewOptions): PageUser[] {
  return workspace
    .listUsers()
    .filter((u) => !u.deleted)
    .map((u) => pageUser(u, admins));
}

/** The workspace change as `me` may see it, or undefined when it is none of their business. */
export function pageEvent(workspace: Workspace, event: WorkspaceEvent, me: string): PageEvent | undefined {
  switch (event.type) {
    case "message_posted":
    case "message_updated":
    case "message_deleted": {
      const { message } = event;
      if (message.ephemeral_for !== undefined && message.ephemeral_for !== me) return undefined;
      if (!canSee(workspace, event.channel, me)) return undefined;
      return { type: event.type, channel: event.channel, message: pageMessage(workspace, message, me) };
    }
    case "ephemeral_posted":
      if (event.user !== me) return undefined;
      return {
        type: "message_posted",
        channel: event.channel,
        message: pageMessage(workspace, event.message, me),
      };
    case "file_uploaded":
      if (!event.file.channels.some((c) => canSee(workspace, c, me))) return undefined;
      return { type: "file_uploaded", file: pageFile(event.file, me) };
    case "view_published":
      return event.user === me ? { type: "view_published", view: event.view } : undefined;
    case "feedback_selected": {
      // Only the clicker's page changes: the message again, with their selection.
      if (event.user !== me || !canSee(workspace, event.channel, me)) return undefined;
      const message = workspace.getMessage(event.channel, event.ts, { includeEphemeral: true });
      if (!message || (message.ephemeral_for !== undefined && message.ephemeral_for !== me)) return undefined;
      return {
        type: "message_updated",
        channel: event.channel,
        message: pageMessage(workspace, message, me),
      };
    }
  }
}

/** May `me` download the file? Files shared into channels: members only; unshared ones: anyone known. */
export function canDownload(workspace: Workspace, file: SandboxFileInfo, me: string): boolean {
  return file.channels.length === 0 || file.channels.some((c) => canSee(workspace, c, me));
}

export function fileUrl(file: Pick<SandboxFileInfo, "id" | "name">, me: string): string {
  return `/sandbox/files/${encodeURIComponent(file.id)}/${encodeURIComponent(file.name)}?as=${encodeURIComponent(me)}`;
}

function channelMessages(workspace: Workspace, channel: string, me: string): SandboxMessage[] {
  const all = workspace
    .history(channel)
    .flatMap((m) => (m.reply_count ? (workspace.replies(channel, m.ts) ?? [m]) : [m]));
  return [...all, ...workspace.ephemeralMessages(channel, me)];
}

function pageMessage(workspace: Workspace, message: SandboxMessage, me: string): PageMessage {
  const { files, ...rest } = message;
  const selected = workspace.feedbackSelected(message.channel, message.ts, me);
  return {
    ...rest,
    ...(files ? { files: files.map((f) => pageFile(f, me)) } : {}),
    ...(selected ? { feedback_selected: selected } : {}),
  };
}

function pageFile(file: SandboxFileInfo, me: string): PageFile {
  const url = fileUrl(file, me);
  return { ...file, url, downloadUrl: `${url}&download=1` };
}

function pageUser(user: SandboxUser, admins: readonly string[]): PageUser {
  return {
    id: user.id,
    name: user.name,
    realName: user.real_name,
    displayName: user.profile.display_name,
    initials: user.profile.initials,
    avatar: `/sandbox/avatars/${encodeURIComponent(user.id)}.svg`,
    isBot: user.is_bot,
    isAuditAdmin: admins.includes(user.id),
  };
}

function pageChannel(channel: SandboxChannel, me: string): PageChannel {
  const dmWith = channel.is_im ? channel.members.find((m) => m !== me) : undefined;
  return {
    id: channel.id,
    name: channel.name,
    isIm: channel.is_im,
    isPrivate: channel.is_private,
    ...(dmWith ? { dmWith } : {}),
  };
}
