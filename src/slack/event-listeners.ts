import type { App } from "@slack/bolt";
import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import type { Config } from "../config.ts";
import { errorMessage } from "../core/errors.ts";
import type { Logger } from "../core/logger.ts";
import type { TurnJobMeta } from "../queue/jobs.ts";
import { type TurnJob, turnJobId } from "../queue/jobs.ts";
import type { TurnQueue } from "../queue/turn-queue.ts";
import type { Storage } from "../storage.ts";
import { cancelPausedRun } from "./cancel-run.ts";
import { createEventRecorder, type RecordedEvent } from "./claim-event.ts";
import type { TurnRequest } from "./classify-event.ts";
import { createFollowUpLane } from "./follow-up-lane.ts";
import { recordedOf } from "./record-first.ts";
import { registerReplayGuard } from "./replay-guard.ts";
import type { SlackOutput } from "./slack-output.ts";

const CANCEL = /^\s*(cancel|stop|abort)\s*[.!]?\s*$/i;

/** Follow-up work (the paused-thread check, enqueue) of this many events runs at once; the rest waits its turn. */
const FOLLOW_UP_CONCURRENCY = 32;
/**
 * …and of this many per channel: a follow-up is an enqueue (no Slack call), so a busy channel's burst
 * is queued about as fast as one spread over channels; only a reply to a thread waiting for approval
 * posts, and a channel of those cannot hold up every other channel's follow-ups.
 */
const FOLLOW_UP_PER_CHANNEL = 16;

export interface EventIntake {
  /** Records a callback before its ack (`processRecordFirst`'s `record`). */
  record(body: Record<string, unknown>): Promise<RecordedEvent>;
  /** Resolves once a burst's claims are done (`processRecordFirst`'s `afterAck`). */
  afterAck(): Promise<void>;
  /** A delivery to `/slack/events` came in; call the result once it is answered (see `FollowUpLane`). */
  arriving(): () => void;
  /** The listeners that act on what was recorded, after the ack; and the replay guard. */
  register(app: App): void;
  /** Acts on a recorded message as the listeners do; `begin` says how the turn shows progress (assistant threads). */
  accept(
    args: { body: Record<string, unknown>; context: Record<string, unknown> },
    begin?: BeginTurn,
  ): Promise<void>;
}

/**
 * Says how an accepted turn shows its progress (the job's meta). `plain` is the default: the meta the
 * event was claimed with, and the worker shows progress in a working message of its own.
 */
export type BeginTurn = (req: TurnRequest, plain: () => TurnJobMeta) => Promise<TurnJobMeta>;

/** What the intake records, answers and queues with. */
export interface IntakeDeps {
  config: Config;
  logger: Logger;
  storage: Pick<Storage, "events" | "runs" | "approvals" | "users" | "audit">;
  runtime: Pick<AgentRuntime, "limits" | "registry">;
  slack: Pick<SlackOutput, "bot" | "client" | "redactor">;
  queue: TurnQueue;
}

/**
 * `app_mention` (channels) and `message` (DMs). Before the ack, `record` claims the event id durably
 * with its turn job (so an acked event is never lost, and a redelivery of one already taken is
 * dropped). After the ack, off Slack's clock, the listener queues the turn for a worker at once, one
 * thread's in the order they were recorded: nothing waits for a Slack call (the worker shows progress,
 * best effort, as Slack's rate limits allow). A thread waiting for approval does not start a turn; a
 * claim that failed is told to the user. Commands and clicks, which have no event id, are
 * deduplicated by the replay guard registered here.
 */
export function createEventIntake(s: IntakeDeps): EventIntake {
  const followUps = createFollowUpLane({
    concurrency: FOLLOW_UP_CONCURRENCY,
    perGroup: FOLLOW_UP_PER_CHANNEL,
  });
  const { storage } = s;
  const record = createEventRecorder(
    { events: storage.events, limits: s.runtime.limits, bot: s.slack.bot },
    followUps,
  );

  const refuse = async (job: TurnJob, err: unknown) => {
    s.logger
      .child({ sessionKey: job.sessionKey, eventId: job.eventId })
      .error({ err: errorMessage(err) }, "could not accept the message");
    // Tell first: with a hung database, marking the event failed waits for its own timeout.
    await s.slack.client.chat
      .postMessage({
        channel: job.channelId,
        thread_ts: job.threadTs,
        text: ":warning: Sorry, I could not take this request right now (my storage or queue is unavailable). Please try again in a moment.",
      })
      .catch(() => undefined);
    await s.storage.events.finish(job.eventId, "failed").catch(() => undefined);
  };

  const onMessage = async (
    {
      body,
      context,
    }: {
      body: Record<string, unknown>;
      context: Record<string, unknown>;
    },
    begin: BeginTurn = async (_req, plain) => plain(),
  ) => {
    // Recorded before the ack; an app built without the recorder records here.
    const recorded = (recordedOf(context) as RecordedEvent | undefined) ?? (await record(body));
    switch (recorded.kind) {
      case "ignored":
        s.logger.debug({ why: recorded.why, eventId: recorded.eventId }, "event ignored");
        return;
      case "duplicate":
        s.logger.info(
          { sessionKey: recorded.job.sessionKey, eventId: recorded.job.eventId },
          "duplicate delivery ignored",
        );
        return;
      case "unrecorded":
        return refuse(recorded.job, recorded.error);
    }
    const { job, request: req } = recorded;
    await followUps.run(
      job.sessionKey,
      async () => {
        try {
          if (await answeredWhilePaused(s, req, job.sessionKey)) {
            await s.storage.events.finish(job.eventId, "done");
            return;
          }
          const claimed = job.meta ?? {};
          const meta = await begin(req, () => claimed);
          await s.queue.enqueue(
            { ...job, meta },
            // The claim before the ack stored the job; a meta `begin` changed is written beside the enqueue.
            { jobId: turnJobId(job.eventId), keptByClaim: meta === claimed ? "whole" : "meta" },
          );
        } catch (err) {
          await refuse(job, err);
        }
      },
      req.channelId,
    );
  };

  return {
    record,
    accept: onMessage,
    afterAck: () => followUps.quiet(),
    arriving: () => followUps.arriving(),
    register(app) {
      const { events, approvals, audit } = storage;
      registerReplayGuard(app, { events, approvals, audit, logger: s.logger });
      app.event("app_mention", async (args) =>
        onMessage({ body: args.body as Record<string, unknown>, context: args.context }),
      );
      app.event("message", async (args) =>
        onMessage({ body: args.body as Record<string, unknown>, context: args.context }),
      );
    },
  };
}

/**
 * While a run of this thread waits for approval, a new message does not start a turn: typing "yes"
 * never approves. The requester's `cancel` rejects the pending calls; anything else is told to use
 * the card.
 */
async function answeredWhilePaused(s: IntakeDeps, req: TurnRequest, key: string): Promise<boolean> {
  // A message that starts its thread is the thread's first: no run of it exists to wait (no read).
  if (!req.inThread) return false;
  const paused = await s.storage.runs.latestPausedForSession(key);
  if (!paused) return false;
  const pending = await s.storage.approvals.listPending({ runId: paused.runId });
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
  await s.slack.client.chat.postMessage({
    channel: req.channelId,
    thread_ts: req.threadTs,
    text: `I'm waiting for approval of ${tools} in this thread. Use the Approve / Reject buttons on the card — a message like "yes" does not approve. ${req.userId === paused.userId ? "Say `cancel` to reject it." : ""}`.trim(),
  });
  return true;
}
