import type { WebClient } from "@slack/web-api";
import type { AssistantThreadContext } from "./viewing-context.ts";

/** The metadata event type Bolt uses for an assistant thread's context. */
export const CONTEXT_EVENT_TYPE = "assistant_thread_context";

interface ThreadRef {
  client: WebClient;
  channel: string;
  threadTs: string;
  botUserId: string;
}

/**
 * Keeps an assistant thread's context (the channel the user is viewing) in the metadata of the bot's
 * first message in the thread, as Bolt's default store does, so every replica reads the same. Unlike
 * Bolt's default store it keeps no copy in memory: that copy is one per app, shared by every thread
 * and user, and would hand one user's context to another's thread.
 */
export function createThreadContextStore() {
  const firstBotMessage = async (t: ThreadRef) => {
    const thread = await t.client.conversations.replies({
      channel: t.channel,
      ts: t.threadTs,
      oldest: t.threadTs,
      include_all_metadata: true,
      limit: 4,
    });
    return (thread.messages ?? []).find((m) => !("subtype" in m && m.subtype) && m.user === t.botUserId);
  };
  return {
    async get(t: ThreadRef): Promise<AssistantThreadContext> {
      const message = await firstBotMessage(t);
      const payload = message?.metadata?.event_payload;
      return payload && typeof payload === "object" ? (payload as AssistantThreadContext) : {};
    },
    /** Stores `context` on the thread's first bot message; false when there is none yet. */
    async save(t: ThreadRef, context: AssistantThreadContext): Promise<boolean> {
      const message = await firstBotMessage(t);
      if (!message?.ts) return false;
      await t.client.chat.update({
        channel: t.channel,
        ts: message.ts,
        text: message.text ?? "",
        metadata: { event_type: CONTEXT_EVENT_TYPE, event_payload: withoutNulls(context) },
      });
      return true;
    },
  };
}

export type ThreadContextStore = ReturnType<typeof createThreadContextStore>;

/** Slack's metadata payload has no nulls (`enterprise_id` is null outside Enterprise Grid). */
function withoutNulls(context: AssistantThreadContext): Record<string, string> {
  return Object.fromEntries(
    Object.entries(context).filter((e): e is [string, string] => typeof e[1] === "string"),
  );
}
