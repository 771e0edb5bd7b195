import type { AgentRuntime } from "../agent/run/agent-runtime.ts";
import { tracing } from "../core/tracing.ts";
import type { TurnJob } from "../queue/jobs.ts";
import type { Storage } from "../storage.ts";
import { classifyEvent, type SlackMessageEvent, type TurnRequest } from "./classify-event.ts";
import type { FollowUpLane } from "./follow-up-lane.ts";
import { sessionKey } from "./session-key.ts";
import type { SlackOutput } from "./slack-output.ts";

/** What recording an Events API callback came to; the listeners act on it after the ack. */
export type RecordedEvent =
  /** Not a message Hermes answers (a bot's, an edit, a join, another event type). */
  | { kind: "ignored"; why: string; eventId?: string | undefined }
  /** Taken already (a Slack retry, or another replica has it). */
  | { kind: "duplicate"; job: TurnJob }
  /** Claimed here with its turn job: from now on a crash loses nothing. */
  | { kind: "accepted"; job: TurnJob; request: TurnRequest }
  /** The claim failed (storage down): the user is told once the event is acked. */
  | { kind: "unrecorded"; job: TurnJob; request: TurnRequest; error: unknown };

/**
 * Records an `app_mention` (channels) or `message` (DMs) callback before it is acked: classifies it,
 * and claims its event id in Postgres with the turn job it asks for, in one statement (a burst's
 * claims share one; see `createClaimBatcher`). Claims run ahead of the follow-up work of events
 * recorded earlier. Never throws: a failed claim comes back as `unrecorded`.
 */
export function createEventRecorder(
  s: Pick<Storage, "events"> & Pick<AgentRuntime, "limits"> & Pick<SlackOutput, "bot">,
  lane: FollowUpLane,
) {
  const staleAfterMs = (s.limits.turnTimeoutMs ?? 300_000) + 60_000;
  return async (body: Record<string, unknown>): Promise<RecordedEvent> => {
    const event = body.event as SlackMessageEvent | undefined;
    const bodyEventId = typeof body.event_id === "string" ? body.event_id : undefined;
    if (!event || (event.type !== "app_mention" && event.type !== "message"))
      return { kind: "ignored", why: `event type ${String(event?.type)}`, eventId: bodyEventId };
    const decision = classifyEvent(event, {
      teamId: typeof body.team_id === "string" ? body.team_id : s.bot.teamId,
      botUserId: s.bot.userId,
      botId: s.bot.botId,
    });
    if (!decision.answer) return { kind: "ignored", why: decision.why, eventId: bodyEventId };
    const request = decision.request;
    const key = sessionKey({
      teamId: request.teamId,
      channelId: request.channelId,
      threadTs: request.threadTs,
      ts: request.ts,
    });
    const eventId = bodyEventId ?? `${request.channelId}-${request.ts}`;
    // The event's span (when tracing is on): its context goes with the job, so the run continues its trace.
    const span = tracing().startSpan(`slack.event ${event.type}`, {
      kind: "server",
      attributes: {
        "slack.event.type": event.type,
        "slack.event.id": eventId,
        "slack.team.id": request.teamId,
        "slack.channel.id": request.channelId,
        "gen_ai.conversation.id": key,
      },
    });
    const traceparent = span.traceparent();
    const job: TurnJob = {
      type: "turn",
      sessionKey: key,
      teamId: request.teamId,
      channelId: request.channelId,
      threadTs: request.threadTs,
      userId: request.userId,
      text: request.text,
      eventId,
      messageTs: request.ts,
      isDm: request.isDm,
      meta: {
        inThread: request.inThread,
        ...(request.files.length > 0 ? { files: request.files } : {}),
        ...(traceparent ? { traceparent } : {}),
      },
    };
    try {
      const claim = await lane.first(() =>
        s.events.claim(eventId, { sessionKey: key, staleAfterMs, payload: job }),
      );
      span.setAttributes({ "hermes.event.claim": claim });
      return claim === "duplicate" ? { kind: "duplicate", job } : { kind: "accepted", job, request };
    } catch (error) {
      span.fail("event not recorded", "claim_failed");
      return { kind: "unrecorded", job, request, error };
    } finally {
      span.end();
    }
  };
}
