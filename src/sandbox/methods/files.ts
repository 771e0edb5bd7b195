import { integerArg, jsonArg, requiredString, stringArg } from "../api-args.ts";
import { invalidArguments, invalidBlocks, SlackApiError } from "../api-error.ts";
import { requireBotMember, resolveChannel } from "../api-objects.ts";
import { LIMITS } from "../block-kit-rules.ts";
import { botCanRead, describeBytes, fileInfoObject, hostedFile } from "../file-objects.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";
import { requireScope } from "../scopes.ts";
import { validateBlocks } from "../validate-blocks.ts";
import { fileInfo } from "../workspace-records.ts";
import type { SandboxFileInfo } from "../workspace-types.ts";

/**
 * The upload flow `WebClient.filesUploadV2` drives: `files.getUploadURLExternal` creates the file and
 * an upload URL on this emulator; the bytes are POSTed there; `files.completeUploadExternal` shares
 * the files into a channel or thread as one bot message (with `initial_comment` as its text).
 * `files.info` describes a file the bot can see.
 */
export const filesMethods: Record<string, MethodHandler> = {
  "files.getUploadURLExternal": (ctx) => {
    const filename = requiredString(ctx.args, "filename");
    const length = integerArg(ctx.args, "length");
    if (length === undefined || length < 1)
      throw invalidArguments(["must be a positive integer [json-pointer:/length]"]);
    const id = ctx.newId("F");
    const altText = stringArg(ctx.args, "alt_text");
    ctx.workspace.addFile(
      hostedFile({
        id,
        name: filename,
        user: ctx.workspace.bot.userId,
        created: Math.floor(ctx.workspace.now() / 1000),
        origin: ctx.origin,
        length,
        ...(altText ? { altText } : {}),
      }),
    );
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

  /**
   * A file the bot can see (its own, or shared in a conversation it is a member of): Slack's file
   * object with `channels`/`groups`/`ims` and `shares`. Needs `files:read`.
   */
  "files.info": (ctx) => {
    requireScope(ctx, "files:read");
    const file = ctx.workspace.getFile(requiredString(ctx.args, "file", "file_not_found"));
    if (!file || !botCanRead(ctx.workspace, file)) throw new SlackApiError("file_not_found");
    return {
      file: fileInfoObject(ctx.workspace, file),
      comments: [],
      response_metadata: { next_cursor: "" },
    };
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
  describeBytes(file);
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
