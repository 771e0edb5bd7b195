import { jsonArg, requiredString, stringArg } from "../api-args.ts";
import { SlackApiError } from "../api-error.ts";
import { apiMessage, isOwnMessage, requireBotMember, resolveChannel } from "../api-objects.ts";
import { readMessageContent } from "../message-content.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";
import type { SandboxMessage, StreamState, StreamTask } from "../workspace-types.ts";

/** Slack's limit on one call's `markdown_text`. */
export const MARKDOWN_TEXT_MAX = 12_000;
const TASK_STATUSES = new Set(["pending", "in_progress", "complete", "error"]);
const DISPLAY_MODES = new Set(["timeline", "plan"]);

/**
 * `chat.startStream` / `chat.appendStream` / `chat.stopStream`: a bot message that grows while it is
 * written (Markdown text, task cards, a plan title), then is finalized with blocks at its bottom. In
 * channels the recipient (user and team) is required; once stopped, or older than the workspace's
 * `streamMaxAgeMs` (Slack ends a stream after about five minutes), the message no longer takes appends
 * or a stop (`message_not_in_streaming_state`) and keeps what it showed. The message is stored as it
 * grows: history, replies and the page see every append.
 */
export const chatStreamMethods: Record<string, MethodHandler> = {
  "chat.startStream": (ctx) => {
    const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
    requireBotMember(ctx, channel);
    const threadTs = stringArg(ctx.args, "thread_ts");
    if (threadTs && !ctx.workspace.getMessage(channel.id, threadTs))
      throw new SlackApiError("thread_not_found");
    if (!channel.is_im) {
      const user = stringArg(ctx.args, "recipient_user_id");
      const team = stringArg(ctx.args, "recipient_team_id");
      if (!user) throw new SlackApiError("missing_recipient_user_id");
      if (!team) throw new SlackApiError("missing_recipient_team_id");
      if (!ctx.workspace.getUser(user)) throw new SlackApiError("user_not_found");
      if (team !== ctx.workspace.team.id) throw new SlackApiError("team_not_found");
    }
    const mode = stringArg(ctx.args, "task_display_mode") ?? "timeline";
    if (!DISPLAY_MODES.has(mode)) throw invalid(`task_display_mode must be one of timeline, plan`);
    const stream: StreamState = {
      state: "streaming",
      task_display_mode: mode as StreamState["task_display_mode"],
      tasks: [],
    };
    const text = applyContent(ctx, stream, "");
    const { bot } = ctx.workspace;
    const message = ctx.workspace.post({
      channel: channel.id,
      text,
      user: bot.userId,
      botId: bot.botId,
      stream,
      ...(threadTs ? { threadTs } : {}),
    });
    return { channel: channel.id, ts: message.ts };
  },

  "chat.appendStream": (ctx) => {
    const { channel, message, stream } = streamingMessage(ctx);
    if (ctx.args.markdown_text === undefined && ctx.args.chunks === undefined)
      throw invalid("markdown_text or chunks is required");
    const text = applyContent(ctx, stream, message.text);
    ctx.workspace.updateMessage(channel, message.ts, { text, stream });
    return { channel, ts: message.ts };
  },

  "chat.stopStream": (ctx) => {
    const { channel, message, stream } = streamingMessage(ctx);
    const text = applyContent(ctx, stream, message.text);
    const blocks =
      ctx.args.blocks === undefined
        ? undefined
        : readMessageContent({ blocks: ctx.args.blocks }, { overlongText: { max: 1, action: "reject" } })
            .blocks;
    stream.state = "stopped";
    const updated = ctx.workspace.updateMessage(channel, message.ts, {
      text,
      stream,
      ...(blocks ? { blocks } : {}),
    });
    return { channel, ts: message.ts, message: apiMessage(ctx, updated ?? message) };
  },
};

function invalid(detail: string): SlackApiError {
  return new SlackApiError("invalid_arguments", { response_metadata: { messages: [`[ERROR] ${detail}`] } });
}

/** The bot's streamed message named by `channel` + `ts`, still streaming. */
function streamingMessage(ctx: MethodContext): {
  channel: string;
  message: SandboxMessage;
  stream: StreamState;
} {
  const channel = resolveChannel(ctx, stringArg(ctx.args, "channel"));
  const ts = requiredString(ctx.args, "ts", "message_not_found");
  const message = ctx.workspace.getMessage(channel.id, ts);
  if (!message) throw new SlackApiError("message_not_found");
  if (!isOwnMessage(ctx, message)) throw new SlackApiError("cant_update_message");
  if (message.stream?.state !== "streaming") throw new SlackApiError("message_not_in_streaming_state");
  // Its ts is when the stream started (the workspace's clock makes both).
  if (ctx.workspace.now() - Number(message.ts) * 1000 > ctx.workspace.streamMaxAgeMs) {
    ctx.workspace.updateMessage(channel.id, message.ts, { stream: { ...message.stream, state: "stopped" } });
    throw new SlackApiError("message_not_in_streaming_state");
  }
  return { channel: channel.id, message, stream: structuredClone(message.stream) };
}

/** Applies a call's `markdown_text` and `chunks` to the stream; returns the message's text after them. */
function applyContent(ctx: MethodContext, stream: StreamState, text: string): string {
  const markdown = stringArg(ctx.args, "markdown_text");
  if (markdown !== undefined && markdown.length > MARKDOWN_TEXT_MAX) throw new SlackApiError("msg_too_long");
  let out = text + (markdown ?? "");
  const chunks = jsonArg(ctx.args, "chunks", "invalid_chunks");
  if (chunks === undefined || chunks === null) return out;
  if (!Array.isArray(chunks)) throw new SlackApiError("invalid_chunks");
  for (const [i, raw] of chunks.entries()) {
    const chunk = (raw ?? {}) as Record<string, unknown>;
    const where = `chunks[${i}]`;
    switch (chunk.type) {
      case "markdown_text":
        if (typeof chunk.text !== "string") throw invalid(`${where}.text must be a string`);
        if (chunk.text.length > MARKDOWN_TEXT_MAX) throw new SlackApiError("msg_too_long");
        out += chunk.text;
        break;
      case "task_update":
        upsertTask(stream, chunk, where);
        break;
      case "plan_update":
        if (typeof chunk.title !== "string" || chunk.title === "")
          throw invalid(`${where}.title is required`);
        stream.plan_title = chunk.title;
        break;
      default:
        throw new SlackApiError("invalid_chunks", {
          response_metadata: {
            messages: [`[ERROR] ${where}.type must be markdown_text, task_update or plan_update`],
          },
        });
    }
  }
  return out;
}

function upsertTask(stream: StreamState, chunk: Record<string, unknown>, where: string): void {
  if (typeof chunk.id !== "string" || chunk.id === "") throw invalid(`${where}.id is required`);
  if (typeof chunk.title !== "string" || chunk.title === "") throw invalid(`${where}.title is required`);
  if (typeof chunk.status !== "string" || !TASK_STATUSES.has(chunk.status))
    throw invalid(`${where}.status must be one of pending, in_progress, complete, error`);
  const task: StreamTask = { id: chunk.id, title: chunk.title, status: chunk.status as StreamTask["status"] };
  for (const key of ["details", "output"] as const) {
    const v = chunk[key];
    if (v !== undefined && typeof v !== "string") throw invalid(`${where}.${key} must be a string`);
    if (typeof v === "string") task[key] = v;
  }
  const at = stream.tasks.findIndex((t) => t.id === task.id);
  if (at >= 0) stream.tasks[at] = { ...stream.tasks[at], ...task };
  else stream.tasks.push(task);
}
