import type { App } from "@slack/bolt";
import { errorMessage } from "../errors.ts";
import { cancelPausedRun } from "./cancel-run.ts";
import { classifyEvent, type SlackMessageEvent, type TurnRequest } from "./classify-event.ts";
import { createFollowUpLane } from "./follow-up-lane.ts";
import { ackEvent } from "./record-first-app.ts";
import { registerReplayGuard } from "./replay-guard.ts";
import type { SlackServices } from "./services.ts";
import { sessionKey } from "./session-key.ts";
import type { TurnJobMeta } from "./turn-worker.ts";

const CANCEL = /^\s*(cancel|stop|abort)\s*[.!]?\s*$/i;

/** Follow-up work (working message, enqueue) of this many events runs at once; the rest waits its turn. */
const FOLLOW_UP_CONCURRENCY = 8;

/**
 * `app_mention` (channels) and `message` (DMs). The event id is claimed durably, with the turn job, in
 * one statement; then the event is acked (`RecordFirstApp`: not before, so an acked event is never
 * lost, and a redelivery of one already taken is dropped). After the ack, off Slack's clock: a working
 * message, and the turn is queued for a worker, in the order one thread's messages were recorded. A
 * thread waiting for approval does not start a turn. Commands and clicks, which have no event id, are
 * deduplicated by the replay guard registered here.
 */
export function registerEventListeners(app: App, s: SlackServices): void {
  registerReplayGuard(app, s);
  const staleAfterMs = (s.limits.turnTimeoutMs ?? 300_000) + 60_000;
  const followUps = createFollowUpLane({ concurrency: FOLLOW_UP_CONCURRENCY });

  const onMessage = async ({
    event,
    body,
    context,
  }: {
    event: SlackMessageEvent;
    body: { event_id?: string; team_id?: string };
    context: Record<string, unknown>;
  }) => {
    const decision = classifyEvent(event, {
      teamId: body.team_id ?? s.bot.teamId,
      botUserId: s.bot.userId,
      botId: s.bot.botId,
    });
    if (!decision.answer) {
      s.logger.debug({ why: decision.why, eventId: body.event_id }, "event ignored");
      return;
    }
    const req = decision.request;
    const key = sessionKey({
      teamId: req.teamId,
      channelId: req.channelId,
      threadTs: req.threadTs,
      ts: req.ts,
    });
    const eventId = body.event_id ?? `${req.channelId}-${req.ts}`;
    const log = s.logger.child({ sessionKey: key, eventId });
    const job = {
      type: "turn" as const,
      sessionKey: key,
      teamId: req.teamId,
      channelId: req.channelId,
      threadTs: req.threadTs,
      userId: req.userId,
      text: req.text,
      eventId,
      messageTs: req.ts,
      isDm: req.isDm,
    };
    const refuse = async (err: unknown) => {
      log.error({ err: errorMessage(err) }, "could not accept the message");
      // Tell first: with a hung database, marking the event failed waits for its own timeout.
      await s.client.chat
        .postMessage({
          channel: req.channelId,
          thread_ts: req.threadTs,
          text: ":warning: Sorry, I could not take this request right now (my storage or queue is unavailable). Please try again in a moment.",
        })
        .catch(() => undefined);
      await s.events.finish(eventId, "failed").catch(() => undefined);
    };

    let claim: Awaited<ReturnType<typeof s.events.claim>>;
    try {
      // The turn is kept with its claim, in one statement, before the ack: from here a crash loses
      // nothing (a start-up or the background sweep queues it again from this row).
      claim = await followUps.first(() =>
        s.events.claim(eventId, { sessionKey: key, staleAfterMs, payload: job }),
      );
    } catch (err) {
      // Not recorded, and the user is told so at once: acked, so Slack does not deliver it again
      // minutes later, when the user has moved on.
      await ackEvent(context);
      return refuse(err);
    }
    await ackEvent(context);
    if (claim === "duplicate") {
      log.info("duplicate delivery ignored");
      return;
    }
    await followUps.run(key, async () => {
      try {
        if (await answeredWhilePaused(s, req, key)) {
          await s.events.finish(eventId, "done");
          return;
        }
        const placeholder = await s.client.chat.postMessage({
          channel: req.channelId,
          thread_ts: req.threadTs,
          text: ":hourglass_flowing_sand: Working on it…",
        });
        const meta: TurnJobMeta = { placeholderTs: placeholder.ts, inThread: req.inThread };
        await s.queue.enqueue(
          { ...job, meta: meta as Record<string, unknown> },
          { jobId: `turn:${eventId}` },
        );
      } catch (err) {
        await refuse(err);
      }
    });
  };

  app.event("app_mention", async (args) =>
    onMessage({ event: args.event as SlackMessageEvent, body: args.body, context: args.context }),
  );
  app.event("message", async (args) =>
    onMessage({ event: args.event as SlackMessageEvent, body: args.body, context: args.context }),
  );
}

/**
 * While a run of this thread waits for approval, a new message does not start a turn: typing "yes"
 * never approves. The requester's `cancel` rejects the pending calls; anything else is told to use
 * the card.
 */
async function answeredWhilePaused(s: SlackServices, req: TurnRequest, key: string): Promise<boolean> {
  const paused = await s.runs.latestPausedForSession(key);
  if (!paused) return false;
  const pending = await s.approvals.listPending({ runId: paused.runId });
  if (pending.length === 0) return false; // every card is decided: the resume is on its way
  if (CANCEL.test(req.text) && req.userId === paused.userId) {
    await cancelPausedRun(s, {
      runId: paused.runId,
      userId: req.userId,
      channel: req.channelId,
      threadTs: req.threadTs,
    });
    return true;
  }
  const tools = [...new Set(pending.map((a) => `\`${a.tool}\``))].join(", ");
  await s.client.chat.postMessage({
    channel: req.channelId,
    thread_ts: req.threadTs,
    text: `I'm waiting for approval of ${tools} in this thread. Use the Approve / Reject buttons on the card — a message like "yes" does not approve. ${req.userId === paused.userId ? "Say `cancel` to reject it." : ""}`.trim(),
  });
  return true;
}
