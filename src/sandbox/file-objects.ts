import { fileTypeOf, imageSize } from "./file-types.ts";
import type { Workspace } from "./workspace.ts";
import type { SandboxFile, SandboxFileInfo } from "./workspace-types.ts";

/**
 * Files as Slack describes them: the record a new hosted file starts as, the fields its bytes decide
 * (type, size, image size and thumbnails), and the file object messages, events and `files.info`
 * carry. URLs point at the emulator (`<origin>/files/<id>/<name>`), served for the bot token only.
 */

export interface NewHostedFile {
  id: string;
  name: string;
  title?: string;
  user: string;
  /** Seconds since the epoch. */
  created: number;
  /** The emulator's address, e.g. `http://127.0.0.1:3000`. */
  origin: string;
  /** The bytes, when they are in hand (a person's upload); otherwise they come to the upload URL. */
  bytes?: Buffer;
  /** The size announced before the bytes arrive. */
  length?: number;
  altText?: string;
}

export function hostedFile(input: NewHostedFile): SandboxFile {
  const base = `${input.origin}/files/${input.id}/${encodeURIComponent(input.name)}`;
  const file: SandboxFile = {
    id: input.id,
    name: input.name,
    title: input.title || input.name,
    ...fileTypeOf(input.name, input.bytes),
    size: input.bytes?.length ?? input.length ?? 0,
    bytes: input.bytes ?? Buffer.alloc(0),
    uploaded: input.bytes !== undefined,
    user: input.user,
    created: input.created,
    mode: "hosted",
    is_external: false,
    ...(input.altText ? { alt_text: input.altText } : {}),
    url_private: base,
    url_private_download: `${base}?download=1`,
    permalink: base,
    channels: [],
  };
  if (input.bytes) describeBytes(file);
  return file;
}

/** Sets what the bytes decide: type, size, and for PNG/GIF images their size and thumbnails. */
export function describeBytes(file: SandboxFile): void {
  Object.assign(file, fileTypeOf(file.name, file.bytes), { size: file.bytes.length });
  const size = imageSize(file.bytes);
  if (!size) return;
  const origin = file.url_private.slice(0, file.url_private.indexOf("/files/"));
  const dot = file.name.lastIndexOf(".");
  const stem = encodeURIComponent(dot > 0 ? file.name.slice(0, dot) : file.name);
  const ext = file.filetype;
  const thumb = (px: number) => `${origin}/files/${file.id}/${stem}_${px}.${ext}`;
  const scale = Math.min(1, 360 / Math.max(size.width, size.height, 1));
  Object.assign(file, {
    original_w: size.width,
    original_h: size.height,
    thumb_64: thumb(64),
    thumb_80: thumb(80),
    thumb_160: thumb(160),
    thumb_360: thumb(360),
    thumb_360_w: Math.max(1, Math.round(size.width * scale)),
    thumb_360_h: Math.max(1, Math.round(size.height * scale)),
  });
}

/**
 * The file object of a message or event, as Slack sends it: the record without the emulator's own
 * fields (`uploaded`, `channels`), plus the fixed fields of a hosted file.
 */
export function slackFileObject(
  file: SandboxFileInfo,
  o: { teamId: string; isPublic: boolean },
): Record<string, unknown> {
  const { uploaded: _uploaded, channels: _channels, ...rest } = file;
  return {
    ...rest,
    timestamp: file.created,
    pretty_type: file.pretty_type ?? fileTypeOf(file.name).pretty_type,
    user_team: o.teamId,
    editable: false,
    mode: "hosted",
    is_external: false,
    external_type: "",
    is_public: o.isPublic,
    public_url_shared: false,
    display_as_bot: false,
    username: "",
    media_display_type: "unknown",
    is_starred: false,
    has_rich_preview: false,
    file_access: "visible",
  };
}

/** Whether a file is shared in at least one public channel (Slack's `is_public`). */
export function isPublicFile(workspace: Workspace, file: SandboxFileInfo): boolean {
  return file.channels.some((id) => {
    const channel = workspace.getChannel(id);
    return channel !== undefined && !channel.is_im && !channel.is_private;
  });
}

/**
 * What the bot token may read, as Slack allows it: its own files, and files shared in a conversation
 * the bot is a member of (its DMs included). Anything else is `file_not_found` to it.
 */
export function botCanRead(workspace: Workspace, file: SandboxFileInfo): boolean {
  if (file.user === workspace.bot.userId) return true;
  return file.channels.some((c) => workspace.isMember(c, workspace.bot.userId));
}

/**
 * `files.info`'s file: the file object with the conversations it is shared in that the bot may see
 * (`channels` public, `groups` private, `ims` DMs) and `shares` (each message that shares it there).
 */
export function fileInfoObject(workspace: Workspace, file: SandboxFileInfo): Record<string, unknown> {
  const channels: string[] = [];
  const groups: string[] = [];
  const ims: string[] = [];
  const shares: { public: Record<string, unknown[]>; private: Record<string, unknown[]> } = {
    public: {},
    private: {},
  };
  for (const id of file.channels) {
    const channel = workspace.getChannel(id);
    if (!channel) continue;
    const isPublic = !channel.is_im && !channel.is_private;
    // As Slack: a private conversation the bot is not in is none of its business.
    if (!isPublic && !channel.members.includes(workspace.bot.userId)) continue;
    (channel.is_im ? ims : isPublic ? channels : groups).push(id);
    const entries = workspace.messagesSharingFile(id, file.id).map((m) => ({
      ...(m.reply_users ? { reply_users: m.reply_users, reply_users_count: m.reply_users.length } : {}),
      ...(m.reply_count ? { reply_count: m.reply_count, latest_reply: m.latest_reply } : {}),
      ts: m.ts,
      ...(m.thread_ts && m.thread_ts !== m.ts ? { thread_ts: m.thread_ts } : {}),
      ...(channel.is_im ? {} : { channel_name: channel.name }),
      team_id: workspace.team.id,
      share_user_id: m.user ?? file.user,
      source: "UNKNOWN",
    }));
    if (entries.length > 0) shares[isPublic ? "public" : "private"][id] = entries;
  }
  return {
    ...slackFileObject(file, { teamId: workspace.team.id, isPublic: channels.length > 0 }),
    channels,
    groups,
    ims,
    ...(Object.keys(shares.public).length + Object.keys(shares.private).length > 0
      ? {
          shares: Object.fromEntries(Object.entries(shares).filter(([, v]) => Object.keys(v).length > 0)),
        }
      : {}),
    comments_count: 0,
  };
}
