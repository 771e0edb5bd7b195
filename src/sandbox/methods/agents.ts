import {
  AGENT_SESSION_STATUSES,
  type AgentSession,
  type AgentSessionStatus,
  agentSessionsOf,
} from "../agent-sessions.ts";
import { requiredString, stringArg } from "../api-args.ts";
import { invalidArguments, SlackApiError } from "../api-error.ts";
import type { MethodContext, MethodHandler, MethodResult } from "../method-types.ts";
import { requireScope } from "../scopes.ts";

const MAX_TITLE = 200;
/** What Slack says when the app does not subscribe to `agent_session_stopped` (the spinner has no Stop). */
export const MISSING_STOP_SUBSCRIPTION = "missing_agent_session_stopped_event_subscription";

/**
 * `agents.sessions.*`: an agent session's lifecycle status and title, as Slack validates them. An app
 * installed without the agent view gets `unknown_method`; a token without `assistant:write`
 * `missing_scope`; a missing or malformed argument `invalid_arguments`; a channel the bot is not in
 * `channel_not_found`; a thread_ts that is no message there `invalid_thread_ts`. setStatus creates
 * the session, and warns `missing_agent_session_stopped_event_subscription` when the app lacks that
 * subscription.
 */
export const agentsMethods: Record<string, MethodHandler> = {
  "agents.sessions.setStatus": (ctx) => {
    const sessions = agentSessions(ctx);
    const { channel, threadTs } = sessionRef(ctx);
    const status = requiredString(ctx.args, "status");
    if (!(AGENT_SESSION_STATUSES as readonly string[]).includes(status))
      throw invalidArguments([`must be one of ${AGENT_SESSION_STATUSES.join(", ")} [json-pointer:/status]`]);
    const title = optionalTitle(ctx);
    const user =
      stringArg(ctx.args, "initiator_user_id") ?? ctx.workspace.getMessage(channel, threadTs)?.user;
    const session = sessions.setStatus(channel, threadTs, status as AgentSessionStatus, {
      ...(title ? { title } : {}),
      ...(user ? { user } : {}),
    });
    return { ...answer(session), ...(sessions.settings.stopEvent ? {} : warning(MISSING_STOP_SUBSCRIPTION)) };
  },

  "agents.sessions.rename": (ctx) => {
    const sessions = agentSessions(ctx);
    const { channel, threadTs } = sessionRef(ctx);
    const title = optionalTitle(ctx);
    if (!title) throw invalidArguments(["missing required field: title"]);
    const session = sessions.rename(channel, threadTs, title);
    if (!session) throw new SlackApiError("session_not_found");
    return { title: session.title };
  },
};

function agentSessions(ctx: MethodContext) {
  const sessions = agentSessionsOf(ctx.workspace);
  if (!sessions.settings.agentView) throw new SlackApiError("unknown_method");
  requireScope(ctx, "assistant:write");
  return sessions;
}

/** The session's channel (the bot must be in it) and its thread root (required in DMs and channels). */
function sessionRef(ctx: MethodContext): { channel: string; threadTs: string } {
  const channelId = requiredString(ctx.args, "channel_id");
  const channel = ctx.workspace.getChannel(channelId);
  if (!channel?.members.includes(ctx.workspace.bot.userId)) throw new SlackApiError("channel_not_found");
  const threadTs = requiredString(ctx.args, "thread_ts");
  if (!ctx.workspace.getMessage(channel.id, threadTs)) throw new SlackApiError("invalid_thread_ts");
  return { channel: channel.id, threadTs };
}

function optionalTitle(ctx: MethodContext): string | undefined {
  const title = stringArg(ctx.args, "title");
  if (title === undefined || title === "") return undefined;
  if (title.length > MAX_TITLE)
    throw invalidArguments([`must be at most ${MAX_TITLE} characters [json-pointer:/title]`]);
  return title;
}

function answer(session: AgentSession): MethodResult {
  return { status: session.status, ...(session.title ? { title: session.title } : {}) };
}

function warning(code: string): MethodResult {
  return { warning: code, response_metadata: { warnings: [code] } };
}
