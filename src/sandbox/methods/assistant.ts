import { agentSessionsOf } from "../agent-sessions.ts";
import { jsonArg, requiredString, stringArg } from "../api-args.ts";
import { invalidArguments, SlackApiError } from "../api-error.ts";
import { type AssistantPrompt, type AssistantThread, assistantThreadsOf } from "../assistant-threads.ts";
import type { MethodContext, MethodHandler } from "../method-types.ts";

/** Slack's limits: up to 4 suggested prompts, up to 10 loading messages. */
const MAX_PROMPTS = 4;
const MAX_LOADING_MESSAGES = 10;

/**
 * `assistant.threads.*`: the status line, suggested prompts and title of an assistant thread, as
 * Slack validates them: a missing argument is `invalid_arguments`, a channel that is no DM of the
 * bot `channel_not_found`, a ts that is no assistant thread of it `invalid_thread_ts`.
 */
export const assistantMethods: Record<string, MethodHandler> = {
  "assistant.threads.setStatus": (ctx) => {
    const thread = assistantThread(ctx);
    if (typeof ctx.args.status !== "string") throw invalidArguments(["missing required field: status"]);
    const loading = loadingMessages(ctx);
    const status = ctx.args.status.trim();
    assistantThreadsOf(ctx.workspace).set(thread.channel, thread.threadTs, {
      status,
      loadingMessages: status ? loading : [],
    });
    return {};
  },

  "assistant.threads.setSuggestedPrompts": (ctx) => {
    // The agent view's Messages tab takes prompts without a thread.
    if (!stringArg(ctx.args, "thread_ts") && agentSessionsOf(ctx.workspace).settings.agentView)
      return messagesTabPrompts(ctx);
    const thread = assistantThread(ctx);
    const prompts = suggestedPrompts(ctx);
    const title = stringArg(ctx.args, "title");
    assistantThreadsOf(ctx.workspace).set(thread.channel, thread.threadTs, {
      prompts: { ...(title ? { title } : {}), prompts },
    });
    return {};
  },

  "assistant.threads.setTitle": (ctx) => {
    const thread = assistantThread(ctx);
    const title = requiredString(ctx.args, "title");
    assistantThreadsOf(ctx.workspace).set(thread.channel, thread.threadTs, { title });
    return {};
  },
};

/** Prompts for a person's Messages tab: the channel must be a DM of the bot. */
function messagesTabPrompts(ctx: MethodContext) {
  const channel = ctx.workspace.getChannel(requiredString(ctx.args, "channel_id"));
  if (!channel?.is_im || !channel.members.includes(ctx.workspace.bot.userId))
    throw new SlackApiError("channel_not_found");
  const prompts = suggestedPrompts(ctx);
  const title = stringArg(ctx.args, "title");
  agentSessionsOf(ctx.workspace).setPrompts({ channel: channel.id, ...(title ? { title } : {}), prompts });
  return {};
}

function assistantThread(ctx: MethodContext): AssistantThread {
  const channelId = requiredString(ctx.args, "channel_id");
  const threadTs = requiredString(ctx.args, "thread_ts");
  const channel = ctx.workspace.getChannel(channelId);
  if (!channel?.is_im || !channel.members.includes(ctx.workspace.bot.userId))
    throw new SlackApiError("channel_not_found");
  const thread = assistantThreadsOf(ctx.workspace).get(channel.id, threadTs);
  if (!thread) throw new SlackApiError("invalid_thread_ts");
  return thread;
}

function loadingMessages(ctx: MethodContext): string[] {
  const value = jsonArg(ctx.args, "loading_messages", "invalid_arguments");
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((m) => typeof m === "string"))
    throw invalidArguments(["loading_messages must be an array of strings [json-pointer:/loading_messages]"]);
  if (value.length > MAX_LOADING_MESSAGES)
    throw invalidArguments([
      `no more than ${MAX_LOADING_MESSAGES} items allowed [json-pointer:/loading_messages]`,
    ]);
  return value as string[];
}

function suggestedPrompts(ctx: MethodContext): AssistantPrompt[] {
  const value = jsonArg(ctx.args, "prompts", "invalid_arguments");
  if (value === undefined) throw invalidArguments(["missing required field: prompts"]);
  if (!Array.isArray(value)) throw invalidArguments(["must be an array [json-pointer:/prompts]"]);
  if (value.length > MAX_PROMPTS)
    throw invalidArguments([`no more than ${MAX_PROMPTS} items allowed [json-pointer:/prompts]`]);
  return value.map((p: unknown, i) => {
    const prompt = (p ?? {}) as Record<string, unknown>;
    for (const field of ["title", "message"])
      if (typeof prompt[field] !== "string" || prompt[field] === "")
        throw invalidArguments([`missing required field: ${field} [json-pointer:/prompts/${i}/${field}]`]);
    return { title: String(prompt.title), message: String(prompt.message) };
  });
}
