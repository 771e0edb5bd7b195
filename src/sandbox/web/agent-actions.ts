import { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import { agentSessionsOf } from "../agent-sessions.ts";
import type { EventsSender } from "../events-sender.ts";
import type { Delivery } from "../signed-delivery.ts";
import type { Workspace } from "../workspace.ts";
import { deliverToBot, pageChannelId, pageUserId, parsePageInput } from "./bot-delivery.ts";
import { PageApiError } from "./json-http.ts";
import { person } from "./page-actions.ts";
import { canSee } from "./user-view.ts";

/** The events sender's methods the page's Messages tab drives. */
export type AgentSender = Pick<EventsSender, "appHomeOpened" | "agentMessage" | "agentSessionStopped">;

const userId = pageUserId;
const channelId = pageChannelId;
const ts = z.string().regex(/^\d{1,12}\.\d{6}$/, "not a message ts");

const openedSchema = z.object({ as: userId });
const messageSchema = z.object({
  as: userId,
  text: z.string().trim().min(1, "say something").max(40_000),
  viewing: channelId.optional(),
});
const stopSchema = z.object({ as: userId, channel: channelId, threadTs: ts });

/**
 * What the page's Messages tab (the agent view) does, as Slack's client does it: opening the tab
 * (`app_home_opened`, tab `messages`), writing to the agent with what the person looks at
 * (`message.im` with `app_context`), and Stop on a session that is processing (`agent_session_stopped`).
 */
export function createAgentActions(o: { workspace: Workspace; sender: AgentSender; logger: Logger }) {
  const { workspace, sender, logger } = o;

  const parse = parsePageInput;

  const deliver = (what: string, send: () => Promise<Delivery>) => deliverToBot(logger, what, send);

  return {
    /** The person opened the agent's Messages tab: the bot may offer suggested prompts. */
    async opened(body: unknown): Promise<void> {
      const input = parse(openedSchema, body);
      person(workspace, input.as);
      await deliver("app_home_opened", () => sender.appHomeOpened({ user: input.as, tab: "messages" }));
    },

    /** A message to the agent from its Messages tab: a new session, with what the person looks at. */
    async message(body: unknown): Promise<{ ts: string }> {
      const input = parse(messageSchema, body);
      person(workspace, input.as);
      if (input.viewing && !canSee(workspace, input.viewing, input.as))
        throw new PageApiError(403, "not_in_channel", "You can only look at channels you are in.");
      let ts = "";
      await deliver("message.im", async () => {
        const d = await sender.agentMessage({
          user: input.as,
          text: input.text,
          ...(input.viewing ? { viewing: { channel: input.viewing } } : {}),
        });
        ts = d.message?.ts ?? "";
        return d;
      });
      return { ts };
    },

    /** Stop on one of the person's sessions. */
    async stop(body: unknown): Promise<void> {
      const input = parse(stopSchema, body);
      person(workspace, input.as);
      const session = agentSessionsOf(workspace).get(input.channel, input.threadTs);
      if (!session || !isDmOf(workspace, input.channel, input.as))
        throw new PageApiError(404, "session_not_found", "That session no longer exists.");
      await deliver("agent_session_stopped", () =>
        sender.agentSessionStopped({ user: input.as, channel: input.channel, threadTs: input.threadTs }),
      );
    },
  };
}

/** Whether `channel` is `user`'s DM with the bot (where their agent sessions live). */
export function isDmOf(workspace: Workspace, channel: string, user: string): boolean {
  const dm = workspace.getChannel(channel);
  return Boolean(dm?.is_im && dm.members.includes(user) && dm.members.includes(workspace.bot.userId));
}
