import { Assistant } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import { resolveAccess } from "../../policy/resolve-access.ts";
import type { Storage } from "../../storage.ts";
import { type AccessDeps, accessSourcesOf } from "../access-deps.ts";
import type { EventIntake } from "../event-listeners.ts";
import { sessionKey } from "../session-key.ts";
import type { SlackOutput } from "../slack-output.ts";
import { THINKING } from "./assistant-status.ts";
import { suggestedPromptsFor } from "./suggested-prompts.ts";
import { createThreadContextStore } from "./thread-context-store.ts";
import { threadTitle } from "./thread-title.ts";
import { type AssistantThreadContext, viewedChannel, viewingContext } from "./viewing-context.ts";

/** What the assistant handlers read: the user's level, the thread's history, redaction, the bot. */
export interface AssistantDeps extends AccessDeps {
  logger: Logger;
  storage: Pick<Storage, "users" | "sessions" | "events">;
  slack: Pick<SlackOutput, "redactor" | "bot">;
}

const GREETING =
  "Hi! I'm Hermes. Ask me to open or look up tickets, report on them, or message your team — I ask before anything risky.";

interface ThreadPayload {
  assistant_thread?: { user_id?: string; channel_id?: string; thread_ts?: string; context?: unknown };
  channel?: string;
  thread_ts?: string;
}

/**
 * Hermes in Slack's assistant split view (Bolt's `Assistant`). A new thread gets a greeting (which
 * carries the thread's context in its metadata) and suggested prompts by the user's level. A message
 * in the thread goes through the same intake as a DM — recorded and deduplicated before the ack,
 * queued, run by a worker with the same sessions, policy, approvals and audit — except that the
 * thread's status line ("is thinking…", then the running tool) shows progress instead of a working
 * message (the answer may stream beside it: `slack/stream/`), the first request titles the thread,
 * and the channel the user is viewing reaches the turn as untrusted data (fenced in the prompt, and
 * `viewing` in the run identity for tools). Bolt's middleware stops such a message before the DM
 * listener: it is handled once.
 */
export function createHermesAssistant(s: AssistantDeps, intake: Pick<EventIntake, "accept">): Assistant {
  const store = createThreadContextStore();
  const refOf = (client: WebClient, payload: ThreadPayload) => ({
    client,
    channel: payload.assistant_thread?.channel_id ?? payload.channel ?? "",
    threadTs: payload.assistant_thread?.thread_ts ?? payload.thread_ts ?? "",
    botUserId: s.slack.bot.userId,
  });

  return new Assistant({
    threadContextStore: {
      get: ({ client, payload }) => store.get(refOf(client, payload as ThreadPayload)),
      save: async ({ client, payload }) => {
        const context = (payload as ThreadPayload).assistant_thread?.context;
        const saved = await store.save(refOf(client, payload as ThreadPayload), contextOf(context));
        if (!saved) s.logger.warn("assistant thread context not saved: the thread has no greeting");
      },
    },

    threadStarted: async ({ event, body, say, setSuggestedPrompts }) => {
      const userId = event.assistant_thread.user_id;
      const log = s.logger.child({ channel: event.assistant_thread.channel_id, userId });
      if (!(await firstDelivery(s.storage, body.event_id, log))) return;
      try {
        const level = await resolveAccess(accessSourcesOf(s), userId)
          .then((a) => a.level)
          .catch(() => "user" as const);
        await say(GREETING);
        await setSuggestedPrompts({ title: "Try asking", prompts: suggestedPromptsFor(level) });
      } catch (err) {
        log.warn({ err: errorMessage(err) }, "could not greet a new assistant thread");
      }
    },

    userMessage: async ({ body, context, setStatus, setTitle, getThreadContext }) => {
      await intake.accept({ body: body as Record<string, unknown>, context }, async (req, plain) => {
        const log = s.logger.child({ channel: req.channelId, threadTs: req.threadTs });
        const key = sessionKey(req);
        // Asked together: the status line, what the user is viewing, whether the thread is new.
        const [status, viewing, first] = await Promise.all([
          setStatus(THINKING).then(
            () => true,
            (err: unknown) => {
              // Not an assistant thread after all (a plain thread in the DM): a working message shows progress.
              log.debug({ err: errorMessage(err) }, "no assistant status: a working message instead");
              return false;
            },
          ),
          getThreadContext().catch((err: unknown) => {
            log.warn({ err: errorMessage(err) }, "assistant thread context unavailable");
            return {};
          }),
          s.storage.sessions
            .load(key)
            .then((l) => !l.found)
            .catch(() => false),
        ]);
        if (!status) return plain();
        // The title is cosmetic: the turn is queued without waiting for it.
        if (first)
          void setTitle(threadTitle(req.text, s.slack.redactor)).catch((err: unknown) =>
            log.warn({ err: errorMessage(err) }, "could not title the assistant thread"),
          );
        const untrustedContext = viewingContext(viewing);
        const viewed = viewedChannel(viewing);
        // Not quoted as thread context: before the first request the thread holds only the greeting.
        // The viewed channel goes to the prompt (fenced) and to the run's tools (`RunIdentity.viewing`).
        return {
          assistantThread: true,
          inThread: false,
          ...(untrustedContext ? { untrustedContext } : {}),
          ...(viewed ? { viewing: viewed } : {}),
        };
      });
    },
  });
}

/**
 * Whether this is the first delivery of an event (a Slack retry of `assistant_thread_started` must
 * not greet twice, nor a retried Stop cancel twice): claimed in the same durable table as messages, and marked done at once, since
 * a greeting lost to a crash is only a missing greeting. Storage down: greet anyway.
 */
export async function firstDelivery(
  s: Pick<Storage, "events">,
  eventId: unknown,
  log: Logger,
): Promise<boolean> {
  if (typeof eventId !== "string" || eventId === "") return true;
  try {
    if ((await s.events.claim(eventId, { staleAfterMs: 10 * 60_000 })) === "duplicate") {
      log.info({ eventId }, "duplicate delivery ignored");
      return false;
    }
    await s.events.finish(eventId, "done");
  } catch (err) {
    log.warn({ err: errorMessage(err), eventId }, "could not record an assistant event; greeting anyway");
  }
  return true;
}

function contextOf(value: unknown): AssistantThreadContext {
  if (!value || typeof value !== "object") return {};
  const c = value as Record<string, unknown>;
  return {
    ...(typeof c.channel_id === "string" ? { channel_id: c.channel_id } : {}),
    ...(typeof c.team_id === "string" ? { team_id: c.team_id } : {}),
    ...(typeof c.enterprise_id === "string" ? { enterprise_id: c.enterprise_id } : {}),
  };
}
