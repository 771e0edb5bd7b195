import { integerArg, jsonArg, requiredString, stringArg } from "../api-args.ts";
import { invalidArguments, invalidBlocks, SlackApiError } from "../api-error.ts";
import { requireBotMember, resolveChannel } from "../api-objects.ts";
import { LIMITS } from "../block-kit-rules.ts";
import { fileTypeOf } from "../file-types.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";
import { validateBlocks } from "../validate-blocks.ts";
import { fileInfo } from "../workspace-records.ts";
import type { SandboxFileInfo } from "../workspace-types.ts";

/**
 * The upload flow `WebClient.filesUploadV2` drives: `files.getUploadURLExternal` creates the file and
 * an upload URL on this emulator; the bytes are POSTed there; `files.completeUploadExternal` shares
 * the files into a channel or thread as one bot message (with `initial_comment` as its text).
 */
export const filesMethods: Record<string, MethodHandler> = {
  "files.getUploadURLExternal": (ctx) => {
    const filename = requiredString(ctx.args, "filename");
    const length = integerArg(ctx.args, "length");
    if (length === undefined || length < 1)
      throw invalidArguments(["must be a positive integer [json-pointer:/length]"]);
    const id = ctx.newId("F");
    const { filetype, mimetype } = fileTypeOf(filename);
    const base = `${ctx.origin}/files/${id}/${encodeURIComponent(filename)}`;
    const altText = stringArg(ctx.args, "alt_text");
    ctx.workspace.addFile({
      id,
      name: filename,
      title: filename,
      mimetype,
      filetype,
      size: length,
      bytes: Buffer.alloc(0),
      uploaded: false,
      user: ctx.workspace.bot.userId,
      created: Math.floor(ctx.workspace.now() / 1000),
      ...(altText ? { alt_text: altText } : {}),
      url_private: base,
      url_private_download: `${base}?download=1`,
      permalink: base,
      channels: [],
    });
    return { upload_url: ctx.uploadUrlFor(id), file_id: id };
  },

  "files.completeUploadExternal": (ctx) => {
    const requested = jsonArg(ctx.args, "files", "invalid_arguments");
    if (!Array.isArray(requested) || requested.length === 0) {
      throw invalidArguments(["missing required field: files"]);
    }
    const files = requested.map((entry) => completeFile(ctx, entry));
    const channelId = stringArg(ctx.args, "channel_id") ?? stringArg(ctx.args, "channels");
    if (channelId) share(ctx, channelId, files);
    return { files: files.map((f) => ctx.workspace.getFile(f.id)).flatMap((f) => (f ? [fileInfo(f)] : [])) };
  },

  "files.info": (ctx) => {
    const file = ctx.workspace.getFile(requiredString(ctx.args, "file", "file_not_found"));
    if (!file) throw new SlackApiError("file_not_found");
    return { file: fileInfo(file) };
  },
};

function completeFile(ctx: MethodContext, entry: unknown): SandboxFileInfo {
  const { id, title } = (typeof entry === "object" && entry !== null ? entry : {}) as {
    id?: unknown;
    title?: unknown;
  };
  const file = typeof id === "string" ? ctx.workspace.getFile(id) : undefined;
  if (!file?.uploaded) throw new SlackApiError("file_not_found");
  if (typeof title === "string" && title) file.title = title;
  Object.assign(file, fileTypeOf(file.name, file.bytes));
  return fileInfo(file);
}

function share(ctx: MethodContext, channelId: string, files: SandboxFileInfo[]): void {
  const channel = resolveChannel(ctx, channelId);
  requireBotMember(ctx, channel);
  const blocks = jsonArg(ctx.args, "blocks", "invalid_blocks_format");
  if (blocks !== undefined && !Array.isArray(blocks)) throw new SlackApiError("invalid_blocks_format");
  const errors = blocks ? validateBlocks(blocks, { maxBlocks: LIMITS.blocksPerMessage }) : [];
  if (errors.length > 0) throw invalidBlocks(errors);
  const threadTs = stringArg(ctx.args, "thread_ts");
  if (threadTs && !ctx.workspace.getMessage(channel.id, threadTs))
    throw new SlackApiError("thread_not_found");
  const shared = files.map((f) => ctx.workspace.shareFile(f.id, channel.id) ?? f);
  const { bot } = ctx.workspace;
  ctx.workspace.post({
    channel: channel.id,
    text: stringArg(ctx.args, "initial_comment") ?? "",
    user: bot.userId,
    botId: bot.botId,
    files: shared,
    ...(blocks ? { blocks } : {}),
    ...(threadTs ? { threadTs } : {}),
  });
}
