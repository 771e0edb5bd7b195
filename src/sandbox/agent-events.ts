import type { SandboxMessage } from "./workspace-types.ts";

/**
 * What the user is looking at in Slack while they use the agent's Messages tab: a channel, a message
 * in it, or a canvas. Slack sends it as `context.entities` (`app_context_changed`) and `app_context`
 * (`message.im`).
 */
export interface AgentViewing {
  channel?: string;
  /** A message of `channel` the user has open. */
  messageTs?: string;
  canvas?: string;
}

export interface AppContext {
  entities: Record<string, unknown>[];
}

/** The entities Slack lists for what the user views (none when they view nothing in particular). */
export function appContextOf(viewing: AgentViewing | undefined, teamId: string): AppContext {
  const entities: Record<string, unknown>[] = [];
  if (viewing?.channel) entities.push({ type: "channel", channel_id: viewing.channel, team_id: teamId });
  if (viewing?.channel && viewing.messageTs)
    entities.push({ type: "message", channel_id: viewing.channel, message_ts: viewing.messageTs });
  if (viewing?.canvas) entities.push({ type: "canvas", canvas_id: viewing.canvas, team_id: teamId });
  return { entities };
}

/** `app_context_changed`: the user, with the agent's Messages tab open, now looks at something else. */
export function appContextChangedEvent(input: {
  user: string;
  channel: string;
  context: AppContext;
  eventTs: string;
}): Record<string, unknown> {
  return {
    type: "app_context_changed",
    user: input.user,
    channel: input.channel,
    context: input.context,
    event_ts: input.eventTs,
  };
}

/** `agent_session_stopped`: the user clicked Stop on a session; its messages still streaming are listed. */
export function agentSessionStoppedEvent(input: {
  user: string;
  channel: string;
  threadTs: string;
  streamingMessageTs: string[];
  eventTs: string;
}): Record<string, unknown> {
  return {
    type: "agent_session_stopped",
    user: input.user,
    channel: input.channel,
    thread_ts: input.threadTs,
    streaming_message_ts: input.streamingMessageTs,
    event_ts: input.eventTs,
  };
}

/** The bot's messages of a thread that are still streaming (what Stop lists). */
export function streamingMessagesOf(thread: readonly SandboxMessage[] | undefined): string[] {
  return (thread ?? []).filter((m) => m.stream?.state === "streaming").map((m) => m.ts);
}
