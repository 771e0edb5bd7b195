import type { App } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { errorMessage } from "../../core/errors.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { TurnJobMeta } from "../../queue/jobs.ts";
import { accessSourcesOf } from "../access-deps.ts";
import type { AssistantDeps } from "../assistant/create-assistant.ts";
import { firstDelivery } from "../assistant/create-assistant.ts";
import { suggestedPromptsFor } from "../assistant/suggested-prompts.ts";
import { threadTitle } from "../assistant/thread-title.ts";
import type { TurnRequest } from "../classify-event.ts";
import type { EventIntake } from "../event-listeners.ts";
import { type AgentViewContext, agentViewContext } from "./app-context.ts";
import { createLastContext } from "./last-context.ts";
import { setSessionStatus } from "./session-status.ts";
import { type StopDeps, stopAgentSession } from "./stop-session.ts";

export type AgentViewDeps = AssistantDeps &
  StopDeps & { storage: AssistantDeps["storage"] & StopDeps["storage"] };

interface MessageEvent {
  type?: string;
  channel_type?: string;
  subtype?: string;
  bot_id?: string;
  user?: string;
  app_context?: unknown;
}

/**
 * Hermes in Slack's agent messaging experience (manifest `features.agent_view`): conversations in the
 * app's Messages tab, each DM message the root of its own thread (its session).
 *
 * - Opening the Messages tab (`app_home_opened`, tab `messages`) offers suggested prompts by level.
 * - A DM message from the Messages tab (`message.im` with `app_context`) goes through the same intake as any message (recorded before the ack, queued, run
 *   with the same sessions, policy, approvals and audit); its session is set `processing` at once and
 *   named from its first message, and the worker moves it on (`session-status.ts`). What the user is
 *   looking at (`app_context`, else their last `app_context_changed`) reaches the turn as untrusted
 *   data: fenced in the prompt, and the channel in the run identity for tools. Handled here, before
 *   the plain DM listener: once.
 * - Stop (`agent_session_stopped`) stops the thread's run as `cancel` does, and closes the session.
 */
export function registerAgentView(app: App, s: AgentViewDeps, intake: Pick<EventIntake, "accept">): void {
  const lastContext = createLastContext();

  app.use(async ({ body, context, client, next }) => {
    const event = (body as { event?: MessageEvent }).event;
    if (!isAgentViewMessage(event)) return next();
    const own = agentViewContext(event.app_context);
    const viewed = own.untrustedContext ? own : lastContext.get(event.user ?? "");
    await intake.accept({ body: body as Record<string, unknown>, context }, (req, plain) =>
      beginSession(s, client, req, plain, viewed),
    );
  });

  app.event("app_home_opened", async ({ event, client }) => {
    if (event.tab !== "messages" || !event.channel) return;
    try {
      const level = await resolveAccess(accessSourcesOf(s), event.user)
        .then((a) => a.level)
        .catch(() => "user" as const);
      await client.assistant.threads.setSuggestedPrompts({
        channel_id: event.channel,
        title: "Try asking",
        prompts: suggestedPromptsFor(level),
      });
    } catch (err) {
      s.logger.warn({ err: errorMessage(err), userId: event.user }, "could not offer suggested prompts");
    }
  });

  app.event("app_context_changed", async ({ event }) => {
    const e = event as unknown as { user?: string; context?: unknown };
    if (typeof e.user !== "string") return;
    const viewed = agentViewContext(e.context);
    lastContext.set(e.user, viewed);
    s.logger.debug({ userId: e.user, viewing: viewed.viewing?.channelId }, "the user's app context changed");
  });

  app.event("agent_session_stopped", async ({ event, body }) => {
    const e = event as unknown as {
      user?: string;
      channel?: string;
      thread_ts?: string;
      streaming_message_ts?: unknown;
    };
    if (!e.user || !e.channel || !e.thread_ts) return;
    const log = s.logger.child({ channel: e.channel, userId: e.user });
    if (!(await firstDelivery(s.storage, (body as { event_id?: unknown }).event_id, log))) return;
    await stopAgentSession(s, {
      teamId: String((body as { team_id?: unknown }).team_id ?? ""),
      channel: e.channel,
      threadTs: e.thread_ts,
      userId: e.user,
      streamingTs: Array.isArray(e.streaming_message_ts) ? e.streaming_message_ts.map(String) : [],
    });
  });
}

/**
 * A person's own message in the agent's Messages tab: `message.im` with `app_context` (not a bot's,
 * an edit or a join). A DM without it (an older client, another surface) takes the plain DM path.
 */
function isAgentViewMessage(event: MessageEvent | undefined): event is MessageEvent {
  return (
    event?.type === "message" &&
    event.channel_type === "im" &&
    typeof event.app_context === "object" &&
    event.app_context !== null &&
    !event.bot_id &&
    (event.subtype === undefined || event.subtype === "file_share")
  );
}

/**
 * The session of an accepted message: set `processing` (created on a thread's first message, then
 * named from it), and the job shows its progress there. Slack refusing the session (no agent view, no
 * scope): the plain DM path, with a working message.
 */
async function beginSession(
  s: AgentViewDeps,
  client: WebClient,
  req: TurnRequest,
  plain: () => TurnJobMeta,
  viewed: AgentViewContext,
): Promise<TurnJobMeta> {
  const log = s.logger.child({ channel: req.channelId, threadTs: req.threadTs });
  const ref = { channel: req.channelId, threadTs: req.threadTs };
  if (!(await setSessionStatus(client, ref, "processing", log, { userId: req.userId }))) return plain();
  // The title is cosmetic: the turn is queued without waiting for it.
  if (!req.inThread)
    void client.agents.sessions
      .rename({
        channel_id: req.channelId,
        thread_ts: req.threadTs,
        title: threadTitle(req.text, s.slack.redactor),
      })
      .catch((err: unknown) => log.warn({ err: errorMessage(err) }, "could not name the agent session"));
  return {
    ...plain(),
    assistantThread: true,
    ...(viewed.untrustedContext ? { untrustedContext: viewed.untrustedContext } : {}),
    ...(viewed.viewing ? { viewing: viewed.viewing } : {}),
  };
}
