import type { WebClient } from "@slack/web-api";
import type { TraceEvent } from "../../agent/run/trace.ts";
import { errorMessage } from "../../core/errors.ts";
import type { Logger } from "../../core/logger.ts";
import type { StatusDisplay } from "../../queue/turn-output.ts";

/** An agent session's lifecycle status in Slack's Messages tab. */
export type SessionStatus = "processing" | "active" | "suspended" | "closed";

export interface SessionRef {
  channel: string;
  threadTs: string;
}

/**
 * Sets a session's status (`agents.sessions.setStatus`, which also creates the session), best effort:
 * false when Slack refused it (logged, never thrown). A warning (the app lacks the
 * `agent_session_stopped` subscription, so Slack shows no Stop) is logged once per call.
 */
export async function setSessionStatus(
  client: WebClient,
  ref: SessionRef,
  status: SessionStatus,
  log: Logger,
  created: { title?: string; userId?: string } = {},
): Promise<boolean> {
  try {
    const answer = await client.agents.sessions.setStatus({
      channel_id: ref.channel,
      thread_ts: ref.threadTs,
      status,
      ...(created.title ? { title: created.title } : {}),
      ...(created.userId ? { initiator_user_id: created.userId } : {}),
    });
    if (answer.warning) log.warn({ warning: answer.warning }, "agent session status set with a warning");
    return true;
  } catch (err) {
    log.debug({ err: errorMessage(err), status }, "agent session status not set");
    return false;
  }
}

/** The status a finished run leaves its session in: suspended while approvals wait, closed when stopped. */
export function settledStatusOf(end: TraceEvent | undefined): SessionStatus {
  if (end?.status === "paused") return "suspended";
  if (end?.stopReason === "cancelled") return "closed";
  return "active";
}

/**
 * An agent session's status while a run works on it: `processing` from its first event, then, when
 * the run is done, `active` (answered), `suspended` (waiting for an approval) or `closed` (the user
 * stopped it), read from the run's `run.end`. Best effort like the assistant's status line: a failed
 * update is dropped, never retried, and never delays the answer.
 */
export function createAgentSessionStatus(options: {
  client: WebClient;
  channel: string;
  threadTs: string;
  logger: Logger;
}): StatusDisplay {
  const ref = { channel: options.channel, threadTs: options.threadTs };
  let started = false;
  let end: TraceEvent | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  const set = (status: SessionStatus) => {
    const previous = inFlight;
    inFlight = previous.then(() => setSessionStatus(options.client, ref, status, options.logger));
    return inFlight;
  };
  return {
    show(event) {
      if (event.event === "run.end") end = event;
      if (started) return;
      started = true;
      void set("processing");
    },
    async close() {
      await inFlight;
    },
    async clear() {
      await set(settledStatusOf(end)).catch(() => undefined);
    },
  };
}
