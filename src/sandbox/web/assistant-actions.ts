import { z } from "zod";
import type { Logger } from "../../core/logger.ts";
import { type AssistantThread, assistantThreadsOf } from "../assistant-threads.ts";
import type { EventsSender } from "../events-sender.ts";
import type { Delivery } from "../signed-delivery.ts";
import type { Workspace } from "../workspace.ts";
import { deliverToBot, pageChannelId, pageUserId, parsePageInput } from "./bot-delivery.ts";
import { PageApiError } from "./json-http.ts";
import { person } from "./page-actions.ts";
import { canSee } from "./user-view.ts";

/** The events sender's methods the assistant pane drives. */
export type AssistantSender = Pick<EventsSender, "assistantThreadStarted" | "assistantThreadContextChanged">;

const userId = pageUserId;
const channelId = pageChannelId;

const openThreadSchema = z.object({ as: userId, viewing: channelId.optional() });
const contextSchema = z.object({
  as: userId,
  channel: channelId,
  threadTs: z.string().regex(/^\d{1,12}\.\d{6}$/, "not a message ts"),
  viewing: channelId.optional(),
});

/**
 * What the page's assistant split view does, as Slack's client does it: opening a new thread (the
 * bot gets `assistant_thread_started`) and looking at another channel while it is open
 * (`assistant_thread_context_changed`). The viewed channel must be one the person can see.
 */
export function createAssistantActions(o: { workspace: Workspace; sender: AssistantSender; logger: Logger }) {
  const { workspace, sender, logger } = o;

  const parse = parsePageInput;

  function viewable(as: string, viewing: string | undefined): string | undefined {
    if (viewing && !canSee(workspace, viewing, as))
      throw new PageApiError(403, "not_in_channel", "You can only look at channels you are in.");
    return viewing;
  }

  const deliver = (what: string, send: () => Promise<Delivery>) => deliverToBot(logger, what, send);

  return {
    /** A new assistant thread in the person's DM with the bot; the bot greets it. */
    async openThread(body: unknown): Promise<{ thread: AssistantThread }> {
      const input = parse(openThreadSchema, body);
      person(workspace, input.as);
      const viewing = viewable(input.as, input.viewing);
      let thread: AssistantThread | undefined;
      await deliver("assistant_thread_started", async () => {
        const started = await sender.assistantThreadStarted({
          user: input.as,
          ...(viewing ? { viewing } : {}),
        });
        thread = started.thread;
        return started.delivery;
      });
      return { thread: thread! };
    },

    /** The person now looks at `viewing` while their thread is open. */
    async changeContext(body: unknown): Promise<void> {
      const input = parse(contextSchema, body);
      person(workspace, input.as);
      const thread = assistantThreadsOf(workspace).get(input.channel, input.threadTs);
      if (!thread || thread.user !== input.as)
        throw new PageApiError(404, "thread_not_found", "That assistant thread no longer exists.");
      const viewing = viewable(input.as, input.viewing);
      await deliver("assistant_thread_context_changed", () =>
        sender.assistantThreadContextChanged({
          channel: thread.channel,
          threadTs: thread.threadTs,
          ...(viewing ? { viewing } : {}),
        }),
      );
    },
  };
}
